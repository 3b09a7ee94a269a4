import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawRequest } from './helpers.ts';
import { KubectlSession } from './kubectl-session.ts';

const deployment = (replicas: number, labels: string) => `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labels: {${labels}}
spec:
  replicas: ${replicas}
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: nginx
        image: nginx:1.27
        ports: [{containerPort: 80}]
`;

describe('server-side apply (pinned kubectl)', () => {
  let s: KubectlSession;
  beforeAll(async () => {
    // Field ownership is the subject: no kube-controller-manager part writes the Deployments here
    // (its status writes would own status, as they do in a cluster).
    s = await KubectlSession.start({ replicaSets: false });
  });
  afterAll(() => s?.stop());

  const getJson = async (...args: string[]) =>
    JSON.parse((await s.kubectl(['get', ...args, '-o', 'json', '--show-managed-fields'])).out);
  const managers = (obj: any) =>
    (obj.metadata.managedFields ?? []).map(
      (e: any) => `${e.manager}/${e.operation}${e.subresource ? `/${e.subresource}` : ''}`,
    );

  it('creates with apply and records what the applier owns in fieldsV1', async () => {
    const applied = await s.kubectl(
      ['apply', '--server-side', '-f', '-'],
      deployment(2, 'tier: front, team: a'),
    );
    expect(applied).toMatchObject({ code: 0, out: 'deployment.apps/web serverside-applied\n' });
    const obj = await getJson('deployment', 'web');
    expect(obj.spec.replicas).toBe(2);
    expect(obj.spec.strategy.type).toBe('RollingUpdate');
    const [entry] = obj.metadata.managedFields;
    expect(entry).toMatchObject({
      manager: 'kubectl',
      operation: 'Apply',
      apiVersion: 'apps/v1',
      fieldsType: 'FieldsV1',
    });
    expect(entry.time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(entry.fieldsV1).toEqual({
      'f:metadata': { 'f:labels': { 'f:team': {}, 'f:tier': {} } },
      'f:spec': {
        'f:replicas': {},
        'f:selector': {},
        'f:template': {
          'f:metadata': { 'f:labels': { 'f:app': {} } },
          'f:spec': {
            'f:containers': {
              'k:{"name":"nginx"}': {
                '.': {},
                'f:image': {},
                'f:name': {},
                'f:ports': { 'k:{"containerPort":80,"protocol":"TCP"}': { '.': {}, 'f:containerPort': {} } },
              },
            },
          },
        },
      },
    });
  });

  it('refuses to take a field another manager owns, names both, and takes it with --force-conflicts', async () => {
    const other = ['apply', '--server-side', '--field-manager=autoscaler', '-f', '-'];
    const refused = await s.kubectl(other, deployment(5, 'tier: front, team: a'));
    expect(refused.code).not.toBe(0);
    expect(refused.err).toContain('Apply failed with 1 conflict: conflict with "kubectl": .spec.replicas');
    expect((await getJson('deployment', 'web')).spec.replicas).toBe(2);

    const raw = await rawRequest(
      s.cp,
      'PATCH',
      '/apis/apps/v1/namespaces/default/deployments/web?fieldManager=autoscaler',
      {
        body: JSON.stringify({
          apiVersion: 'apps/v1',
          kind: 'Deployment',
          metadata: { name: 'web' },
          spec: { replicas: 4, template: { spec: { containers: [{ name: 'nginx', image: 'nginx:1.28' }] } } },
        }),
        headers: { 'content-type': 'application/apply-patch+yaml' },
      },
    );
    expect(raw.code).toBe(409);
    expect(raw.body).toMatchObject({
      reason: 'Conflict',
      message:
        'Apply failed with 2 conflicts: conflicts with "kubectl":\n- .spec.replicas\n- .spec.template.spec.containers[name="nginx"].image',
      details: {
        causes: [
          { reason: 'FieldManagerConflict', message: 'conflict with "kubectl"', field: '.spec.replicas' },
          {
            reason: 'FieldManagerConflict',
            message: 'conflict with "kubectl"',
            field: '.spec.template.spec.containers[name="nginx"].image',
          },
        ],
      },
    });

    const forced = await s.kubectl([...other, '--force-conflicts'], deployment(5, 'tier: front, team: a'));
    expect(forced).toMatchObject({ code: 0, out: 'deployment.apps/web serverside-applied\n' });
    const obj = await getJson('deployment', 'web');
    expect(obj.spec.replicas).toBe(5);
    const byManager = Object.fromEntries(obj.metadata.managedFields.map((e: any) => [e.manager, e.fieldsV1]));
    expect(byManager.autoscaler['f:spec']['f:replicas']).toEqual({});
    expect(byManager.kubectl['f:spec']['f:replicas']).toBeUndefined();
    // Fields both apply with the same value are shared, not conflicts.
    expect(byManager.kubectl['f:metadata']['f:labels']).toEqual({ 'f:team': {}, 'f:tier': {} });
  });

  it('records ordinary writes as Update by their field manager, and conflicts with them', async () => {
    expect((await s.kubectl(['label', 'deployment', 'web', 'owner=ops'])).code).toBe(0);
    const obj = await getJson('deployment', 'web');
    // Apply entries first, then Update ones; by time within each.
    expect(managers(obj).slice(2)).toEqual(['kubectl-label/Update']);
    expect(managers(obj).slice(0, 2).sort()).toEqual(['autoscaler/Apply', 'kubectl/Apply']);
    const label = obj.metadata.managedFields.find((e: any) => e.manager === 'kubectl-label');
    expect(label).toMatchObject({
      apiVersion: 'apps/v1',
      fieldsV1: { 'f:metadata': { 'f:labels': { 'f:owner': {} } } },
    });
    const refused = await s.kubectl(
      ['apply', '--server-side', '-f', '-'],
      deployment(5, 'tier: front, team: a, owner: dev'),
    );
    expect(refused.err).toContain(
      'Apply failed with 1 conflict: conflict with "kubectl-label" using apps/v1: .metadata.labels.owner',
    );
  });

  it('removes what an applier stops applying unless another manager owns it', async () => {
    expect((await s.kubectl(['apply', '--server-side', '-f', '-'], deployment(5, 'tier: front'))).code).toBe(
      0,
    );
    let labels = (await getJson('deployment', 'web')).metadata.labels;
    // team was applied by both kubectl and autoscaler: autoscaler still owns it.
    expect(labels).toEqual({ tier: 'front', team: 'a', owner: 'ops' });
    const other = ['apply', '--server-side', '--field-manager=autoscaler', '-f', '-'];
    expect((await s.kubectl(other, deployment(5, 'tier: front'))).code).toBe(0);
    labels = (await getJson('deployment', 'web')).metadata.labels;
    expect(labels).toEqual({ tier: 'front', owner: 'ops' });
  });

  it('removes a list item the applier stops applying, whole, although another manager set a field in it', async () => {
    const two = deployment(1, 'tier: back')
      .replace('name: web', 'name: pruned')
      .replace(
        'ports: [{containerPort: 80}]',
        'ports: [{containerPort: 80}]\n      - name: sidecar\n        image: busybox:1.36',
      );
    expect((await s.kubectl(['apply', '--server-side', '-f', '-'], two)).code).toBe(0);
    // An Update by another manager (as a controller writes) inside the sidecar item.
    expect((await s.kubectl(['set', 'image', 'deployment/pruned', 'sidecar=busybox:1.37'])).code).toBe(0);
    const one = deployment(1, 'tier: back').replace('name: web', 'name: pruned');
    const applied = await s.kubectl(['apply', '--server-side', '-f', '-'], one);
    expect(applied.err).toBe('');
    const obj = await getJson('deployment', 'pruned');
    expect(obj.spec.template.spec.containers.map((c: any) => c.name)).toEqual(['nginx']);
    expect(managers(obj)).toEqual(['kubectl/Apply']);
  });

  it('keeps client-side apply and create working, each as its own manager', async () => {
    const cm = 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: csa}\ndata: {a: "1"}\n';
    expect((await s.kubectl(['apply', '-f', '-'], cm)).out).toBe('configmap/csa created\n');
    expect((await s.kubectl(['apply', '-f', '-'], cm.replace('"1"', '"2"'))).out).toBe(
      'configmap/csa configured\n',
    );
    const obj = await getJson('configmap', 'csa');
    expect(obj.data).toEqual({ a: '2' });
    expect(managers(obj)).toEqual(['kubectl-client-side-apply/Update']);
    expect(obj.metadata.managedFields[0].fieldsV1).toEqual({
      'f:data': { '.': {}, 'f:a': {} },
      'f:metadata': {
        'f:annotations': { '.': {}, 'f:kubectl.kubernetes.io/last-applied-configuration': {} },
      },
    });
    expect((await s.kubectl(['create', 'configmap', 'made', '--from-literal=k=v'])).code).toBe(0);
    expect(managers(await getJson('configmap', 'made'))).toEqual(['kubectl-create/Update']);
  });

  it('merges a CRD list by its x-kubernetes-list-map-keys between two appliers', async () => {
    const crd = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              parts:
                type: array
                x-kubernetes-list-type: map
                x-kubernetes-list-map-keys: [name]
                items:
                  type: object
                  required: [name]
                  properties:
                    name: {type: string}
                    size: {type: integer}
              tags:
                type: array
                items: {type: string}
`;
    expect((await s.kubectl(['apply', '-f', '-'], crd)).code).toBe(0);
    const widget = (manager: string, part: string, size: number, tags: string) =>
      s.kubectl(
        ['apply', '--server-side', `--field-manager=${manager}`, '-f', '-'],
        `apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\nspec: {parts: [{name: ${part}, size: ${size}}], tags: [${tags}]}\n`,
      );
    expect((await widget('left', 'a', 1, 'x')).out).toBe('widget.example.com/w serverside-applied\n');
    expect((await widget('right', 'b', 2, 'x')).code).toBe(0);
    const obj = await getJson('widget', 'w');
    expect(obj.spec.parts).toEqual([
      { name: 'a', size: 1 },
      { name: 'b', size: 2 },
    ]);
    const right = obj.metadata.managedFields.find((e: any) => e.manager === 'right');
    expect(right.fieldsV1).toEqual({
      'f:spec': { 'f:parts': { 'k:{"name":"b"}': { '.': {}, 'f:name': {}, 'f:size': {} } }, 'f:tags': {} },
    });
    // A list without a list type is atomic: a different value is a conflict on the whole list.
    const clash = await widget('right', 'b', 2, 'y');
    expect(clash.err).toContain('Apply failed with 1 conflict: conflict with "left": .spec.tags');
  });

  it('applies status through the status subresource as its own manager', async () => {
    const status = await rawRequest(
      s.cp,
      'PATCH',
      '/apis/apps/v1/namespaces/default/deployments/web/status?fieldManager=rollout',
      {
        body: JSON.stringify({
          apiVersion: 'apps/v1',
          kind: 'Deployment',
          metadata: { name: 'web' },
          status: { observedGeneration: 7, replicas: 5 },
          spec: { replicas: 9 },
        }),
        headers: { 'content-type': 'application/apply-patch+yaml' },
      },
    );
    expect(status.code).toBe(200);
    expect(status.body.status).toMatchObject({ observedGeneration: 7, replicas: 5 });
    expect(status.body.spec.replicas).toBe(5);
    const entry = status.body.metadata.managedFields.find((e: any) => e.manager === 'rollout');
    expect(entry).toMatchObject({
      operation: 'Apply',
      subresource: 'status',
      fieldsV1: { 'f:status': { 'f:observedGeneration': {}, 'f:replicas': {} } },
    });
  });

  it('moves client-side apply ownership to server-side apply as kubectl migrates it', async () => {
    const cm = 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: moving}\ndata: {a: "1"}\n';
    expect((await s.kubectl(['apply', '-f', '-'], cm)).code).toBe(0);
    // A changed value is a conflict with the client-side applier, as on a real cluster.
    const changed = await s.kubectl(['apply', '--server-side', '-f', '-'], cm.replace('"1"', '"2"'));
    expect(changed.err).toContain('conflict with "kubectl-client-side-apply" using v1: .data.a');
    // The same configuration applies, and kubectl then hands the client-side fields to "kubectl".
    expect((await s.kubectl(['apply', '--server-side', '-f', '-'], cm)).code).toBe(0);
    // (kubectl keeps its last-applied annotation under a manager of its own.)
    expect(managers(await getJson('configmap', 'moving')).sort()).toEqual([
      'kubectl-last-applied/Apply',
      'kubectl/Apply',
    ]);
    expect((await s.kubectl(['apply', '--server-side', '-f', '-'], cm.replace('"1"', '"2"'))).code).toBe(0);
    expect((await getJson('configmap', 'moving')).data).toEqual({ a: '2' });
  });

  it('requires a field manager for apply and refuses force on other patches, as kube-apiserver', async () => {
    const path = '/api/v1/namespaces/default/configmaps/csa';
    const noManager = await rawRequest(s.cp, 'PATCH', path, {
      body: '{"apiVersion":"v1","kind":"ConfigMap"}',
      headers: { 'content-type': 'application/apply-patch+yaml' },
    });
    expect(noManager).toMatchObject({
      code: 422,
      body: {
        reason: 'Invalid',
        message:
          'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch',
      },
    });
    const force = await rawRequest(s.cp, 'PATCH', `${path}?force=true`, {
      body: '{}',
      headers: { 'content-type': 'application/merge-patch+json' },
    });
    expect(force.body.message).toBe(
      'PatchOptions.meta.k8s.io "" is invalid: force: Forbidden: may not be specified for non-apply patch',
    );
  });
});
