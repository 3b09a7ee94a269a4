import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from './helpers.ts';
import { KubectlSession } from './kubectl-session.ts';

let s: KubectlSession;

/** `kubectl … -o json`, parsed; fails the test on a non-zero exit. */
async function getJson(args: string[]): Promise<any> {
  const r = await s.kubectl([...args, '-o', 'json']);
  expect(r.err).toBe('');
  return JSON.parse(r.out);
}

const MOUNT = '/var/run/secrets/kubernetes.io/serviceaccount';

/** Objects as one YAML stream, for `kubectl apply -f -`. */
const stream = (...objects: object[]) => objects.map((o) => JSON.stringify(o)).join('\n---\n');

beforeAll(async () => {
  s = await KubectlSession.start();
});
afterAll(() => s.stop());

describe('the default ServiceAccount and kube-root-ca.crt of every namespace', () => {
  it('are in the bootstrap namespaces from the start', async () => {
    for (const ns of ['default', 'kube-system', 'kube-public', 'kube-node-lease']) {
      const r = await s.kubectl(['get', 'serviceaccount/default', 'configmap/kube-root-ca.crt', '-n', ns]);
      expect(r.code, r.err).toBe(0);
    }
  });

  it('appear with a new namespace, and come back when deleted or edited', async () => {
    expect((await s.kubectl(['create', 'namespace', 'team-a'])).code).toBe(0);
    const sa = await getJson(['get', 'sa', 'default', '-n', 'team-a']);
    const cm = await getJson(['get', 'configmap', 'kube-root-ca.crt', '-n', 'team-a']);
    expect(cm.data).toEqual({ 'ca.crt': s.cp.caCert });
    expect(cm.metadata.annotations['kubernetes.io/description']).toMatch(/^Contains a CA bundle/);

    expect((await s.kubectl(['delete', 'sa', 'default', '-n', 'team-a'])).code).toBe(0);
    await eventually(async () => {
      const r = await s.kubectl(['get', 'sa', 'default', '-n', 'team-a', '-o', 'jsonpath={.metadata.uid}']);
      return r.code === 0 && r.out !== sa.metadata.uid;
    });

    const patched = await s.kubectl([
      'patch',
      'configmap',
      'kube-root-ca.crt',
      '-n',
      'team-a',
      '--type=merge',
      '-p',
      '{"data":{"ca.crt":"tampered","extra":"x"}}',
    ]);
    expect(patched.code, patched.err).toBe(0);
    await eventually(
      async () =>
        JSON.stringify((await getJson(['get', 'cm', 'kube-root-ca.crt', '-n', 'team-a'])).data) ===
        JSON.stringify({ 'ca.crt': s.cp.caCert }),
    );
    expect((await s.kubectl(['delete', 'cm', 'kube-root-ca.crt', '-n', 'team-a'])).code).toBe(0);
    await eventually(
      async () => (await s.kubectl(['get', 'cm', 'kube-root-ca.crt', '-n', 'team-a'])).code === 0,
    );
  });
});

describe('ServiceAccount admission of pods', () => {
  it('runs a pod made right after its namespace as default, with the API access volume in every container', async () => {
    const r = await s.kubectl(
      ['apply', '-f', '-'],
      stream(
        { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'fresh' } },
        {
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: { name: 'web', namespace: 'fresh' },
          spec: {
            initContainers: [{ name: 'init', image: 'busybox' }],
            containers: [
              { name: 'app', image: 'nginx' },
              {
                name: 'own-mount',
                image: 'nginx',
                volumeMounts: [{ name: 'mine', mountPath: MOUNT }],
              },
            ],
            volumes: [{ name: 'mine', emptyDir: {} }],
          },
        },
      ),
    );
    expect(r.code, r.err).toBe(0);
    const pod = await getJson(['get', 'pod', 'web', '-n', 'fresh']);
    expect(pod.spec.serviceAccountName).toBe('default');
    const volume = pod.spec.volumes.find((v: any) => v.name.startsWith('kube-api-access-'));
    expect(volume.name).toMatch(/^kube-api-access-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    expect(volume).toEqual({
      name: volume.name,
      projected: {
        defaultMode: 420,
        sources: [
          { serviceAccountToken: { expirationSeconds: 3607, path: 'token' } },
          { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
          {
            downwardAPI: {
              items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }],
            },
          },
        ],
      },
    });
    const mount = { name: volume.name, readOnly: true, mountPath: MOUNT };
    expect(pod.spec.initContainers[0].volumeMounts).toEqual([mount]);
    expect(pod.spec.containers[0].volumeMounts).toEqual([mount]);
    // A container with its own mount at the path keeps it.
    expect(pod.spec.containers[1].volumeMounts).toEqual([{ name: 'mine', mountPath: MOUNT }]);
  });

  it('mounts nothing when the pod or its ServiceAccount turns automount off, and copies the account pull secrets', async () => {
    const manifest = [
      {
        apiVersion: 'v1',
        kind: 'ServiceAccount',
        metadata: { name: 'quiet', namespace: 'default' },
        automountServiceAccountToken: false,
        imagePullSecrets: [{ name: 'registry-login' }],
      },
      {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'as-quiet', namespace: 'default' },
        spec: { serviceAccountName: 'quiet', containers: [{ name: 'app', image: 'nginx' }] },
      },
      {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'legacy-field', namespace: 'default' },
        spec: { serviceAccount: 'quiet', containers: [{ name: 'app', image: 'nginx' }] },
      },
      {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'opted-out', namespace: 'default' },
        spec: { automountServiceAccountToken: false, containers: [{ name: 'app', image: 'nginx' }] },
      },
      {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'opted-in', namespace: 'default' },
        spec: {
          serviceAccountName: 'quiet',
          automountServiceAccountToken: true,
          containers: [{ name: 'app', image: 'nginx' }],
        },
      },
    ];
    const r = await s.kubectl(['apply', '-f', '-'], stream(...manifest));
    expect(r.code, r.err).toBe(0);
    const quiet = await getJson(['get', 'pod', 'as-quiet']);
    expect(quiet.spec.volumes).toBeUndefined();
    expect(quiet.spec.containers[0].volumeMounts).toBeUndefined();
    expect(quiet.spec.imagePullSecrets).toEqual([{ name: 'registry-login' }]);
    // The deprecated field names the account when serviceAccountName is empty.
    expect((await getJson(['get', 'pod', 'legacy-field'])).spec.serviceAccountName).toBe('quiet');
    const optedOut = await getJson(['get', 'pod', 'opted-out']);
    expect(optedOut.spec.serviceAccountName).toBe('default');
    expect(optedOut.spec.volumes).toBeUndefined();
    const optedIn = await getJson(['get', 'pod', 'opted-in']);
    expect(optedIn.spec.containers[0].volumeMounts).toEqual([
      { name: optedIn.spec.volumes[0].name, readOnly: true, mountPath: MOUNT },
    ]);
  });

  it("refuses a pod whose ServiceAccount does not exist, in kube-apiserver's words", async () => {
    const r = await s.kubectl(
      ['apply', '-f', '-'],
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'orphan', namespace: 'default' },
        spec: { serviceAccountName: 'missing', containers: [{ name: 'app', image: 'nginx' }] },
      }),
    );
    expect(r.code).not.toBe(0);
    expect(r.err).toContain(
      'pods "orphan" is forbidden: error looking up service account default/missing: serviceaccount "missing" not found',
    );
    expect((await s.kubectl(['get', 'pod', 'orphan'])).code).not.toBe(0);
  });
});
