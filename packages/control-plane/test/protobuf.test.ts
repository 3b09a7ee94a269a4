import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawRequest } from './helpers.ts';
import { KubectlSession } from './kubectl-session.ts';

// kubectl's `create` generators send protobuf and accept protobuf first: kubectl's own decoder reads
// what the server encodes, so `-o json` of a create shows the protobuf answer as kubectl understood it.
describe('protobuf request and response bodies (pinned kubectl)', () => {
  let s: KubectlSession;
  beforeAll(async () => {
    // Deployments are read back byte for byte: no Deployment controller may write their status meanwhile.
    s = await KubectlSession.start({ replicaSets: false });
  });
  afterAll(() => s?.stop());

  it('creates a deployment and reads it back the same through protobuf and JSON', async () => {
    const created = await s.kubectl([
      'create',
      'deployment',
      'web',
      '--image=nginx:1.27',
      '--replicas=2',
      '--port=80',
      '-o',
      'json',
    ]);
    expect(created.err).toBe('');
    const viaProtobuf = JSON.parse(created.out);
    expect(viaProtobuf).toMatchObject({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', namespace: 'default', labels: { app: 'web' }, generation: 1 },
      spec: {
        replicas: 2,
        selector: { matchLabels: { app: 'web' } },
        strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' } },
        template: {
          metadata: { labels: { app: 'web' } },
          spec: {
            containers: [{ name: 'nginx', image: 'nginx:1.27', ports: [{ containerPort: 80 }] }],
          },
        },
      },
    });
    expect(viaProtobuf.metadata.creationTimestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    const viaJson = JSON.parse((await s.kubectl(['get', 'deployment', 'web', '-o', 'json'])).out);
    // kubectl prints the typed Go object it decoded, which writes zero values JSON omits.
    expect(viaProtobuf.status).toEqual({});
    expect(viaProtobuf.spec.template.metadata.creationTimestamp).toBeNull();
    delete viaProtobuf.status;
    delete viaProtobuf.spec.template.metadata.creationTimestamp;
    expect(viaProtobuf).toEqual(viaJson); // An error answered in protobuf (a Status) reads as kube-apiserver's.
    const again = await s.kubectl(['create', 'deployment', 'web', '--image=nginx:1.27']);
    expect(again.err).toBe('error: failed to create deployment: deployments.apps "web" already exists\n');
  });

  it('creates a role, a binding and a token that together grant what was asked', async () => {
    expect((await s.kubectl(['create', 'namespace', 'team'])).code).toBe(0);
    expect((await s.kubectl(['create', 'serviceaccount', 'bot', '-n', 'team'])).out).toBe(
      'serviceaccount/bot created\n',
    );
    const role = await s.kubectl([
      'create',
      'role',
      'reader',
      '-n',
      'team',
      '--verb=get,list',
      '--resource=configmaps',
      '-o',
      'json',
    ]);
    expect(JSON.parse(role.out).rules).toEqual([
      { verbs: ['get', 'list'], apiGroups: [''], resources: ['configmaps'] },
    ]);
    const binding = await s.kubectl([
      'create',
      'rolebinding',
      'bot-reads',
      '-n',
      'team',
      '--role=reader',
      '--serviceaccount=team:bot',
    ]);
    expect(binding.out).toBe('rolebinding.rbac.authorization.k8s.io/bot-reads created\n');
    expect(
      (await s.kubectl(['create', 'clusterrole', 'node-reader', '--verb=get', '--resource=nodes'])).code,
    ).toBe(0);
    expect(
      (
        await s.kubectl([
          'create',
          'clusterrolebinding',
          'bot-nodes',
          '--clusterrole=node-reader',
          '--serviceaccount=team:bot',
        ])
      ).code,
    ).toBe(0);
    const token = await s.kubectl(['create', 'token', 'bot', '-n', 'team', '--duration=1h']);
    expect(token.err).toBe('');
    const jwt = token.out.trim();
    expect(jwt).not.toBe('');
    expect((await rawRequest(s.cp, 'GET', '/api/v1/namespaces/team/configmaps', { token: jwt })).code).toBe(
      200,
    );
    expect((await rawRequest(s.cp, 'GET', '/api/v1/namespaces/team/secrets', { token: jwt })).code).toBe(403);
    const reader = await s.kubectl(['get', 'configmaps', '-n', 'team', `--token=${jwt}`]);
    expect(reader.code).toBe(0);
  });

  it('creates the other generated kinds', async () => {
    const cm = await s.kubectl(['create', 'configmap', 'cfg', '--from-literal=a=1', '-o', 'json']);
    expect(JSON.parse(cm.out).data).toEqual({ a: '1' });
    const secret = await s.kubectl([
      'create',
      'secret',
      'generic',
      'pw',
      '--from-literal=k=hunter2',
      '-o',
      'json',
    ]);
    expect(Buffer.from(JSON.parse(secret.out).data.k, 'base64').toString()).toBe('hunter2');
    const tls = await s.kubectl([
      'create',
      'secret',
      'docker-registry',
      'reg',
      '--docker-server=r.example',
      '--docker-username=u',
      '--docker-password=p',
      '-o',
      'json',
    ]);
    expect(JSON.parse(tls.out).type).toBe('kubernetes.io/dockerconfigjson');
  });

  it('carries int-or-string values (service ports, budgets) and pods through the generators', async () => {
    const svc = await s.kubectl(['create', 'service', 'clusterip', 'api', '--tcp=80:8080', '-o', 'json']);
    expect(svc.err).toBe('');
    expect(JSON.parse(svc.out).spec.ports).toEqual([
      { name: '80-8080', protocol: 'TCP', port: 80, targetPort: 8080 },
    ]);
    const pdb = await s.kubectl([
      'create',
      'poddisruptionbudget',
      'api',
      '--selector=app=api',
      '--min-available=50%',
      '-o',
      'json',
    ]);
    expect(pdb.err).toBe('');
    expect(JSON.parse(pdb.out).spec).toMatchObject({
      minAvailable: '50%',
      selector: { matchLabels: { app: 'api' } },
    });
    const run = await s.kubectl([
      'run',
      'job',
      '--image=busybox',
      '--restart=Never',
      '--env=A=1',
      '--port=8080',
      '-o',
      'json',
    ]);
    expect(run.err).toBe('');
    const pod = JSON.parse(run.out);
    expect(pod.spec.containers[0]).toMatchObject({
      env: [{ name: 'A', value: '1' }],
      ports: [{ containerPort: 8080 }],
    });
    const viaJson = JSON.parse((await s.kubectl(['get', 'pod', 'job', '-o', 'json'])).out);
    expect(pod.metadata.creationTimestamp).toBe(viaJson.metadata.creationTimestamp);
    expect(pod.spec).toEqual(viaJson.spec);
  });

  it('refuses unknown media types with the list of what the verb accepts', async () => {
    const post = await rawRequest(s.cp, 'POST', '/api/v1/namespaces/default/configmaps', {
      body: 'a=b',
      headers: { 'content-type': 'text/plain' },
    });
    expect(post).toMatchObject({
      code: 415,
      body: {
        reason: 'UnsupportedMediaType',
        message:
          'the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf',
      },
    });
    const patch = await rawRequest(s.cp, 'PATCH', '/api/v1/namespaces/default/configmaps/cfg', {
      body: '{}',
      headers: { 'content-type': 'application/json' },
    });
    expect(patch.body.message).toBe(
      'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json, application/apply-patch+yaml',
    );
  });
});
