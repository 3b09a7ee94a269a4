import { AuthorizationV1Api, CoreV1Api, RbacAuthorizationV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ControlPlane } from '../src/index.ts';
import { expectStatus, kubeConfigFor, rawRequest, startControlPlane } from './helpers.ts';

let cp: ControlPlane;
let token: string;
let asSa: CoreV1Api;

beforeAll(async () => {
  cp = await startControlPlane();
  const kc = kubeConfigFor(cp);
  const core = kc.makeApiClient(CoreV1Api);
  const rbac = kc.makeApiClient(RbacAuthorizationV1Api);
  await core.createNamespacedServiceAccount({ namespace: 'default', body: { metadata: { name: 'reader' } } });
  await rbac.createNamespacedRole({
    namespace: 'default',
    body: {
      metadata: { name: 'cm-reader' },
      rules: [
        { apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list'] },
        { apiGroups: [''], resources: ['pods/status'], verbs: ['patch'] },
      ],
    },
  });
  await rbac.createNamespacedRoleBinding({
    namespace: 'default',
    body: {
      metadata: { name: 'reader' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'cm-reader' },
      subjects: [{ kind: 'ServiceAccount', name: 'reader', namespace: 'default' }],
    },
  });
  const tr = await core.createNamespacedServiceAccountToken({
    name: 'reader',
    namespace: 'default',
    body: { spec: { audiences: [], expirationSeconds: 3600 } },
  });
  token = tr.status!.token!;
  asSa = kubeConfigFor(cp, token).makeApiClient(CoreV1Api);
  await core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'visible' } } });
});
afterAll(() => cp.stop());

describe('authentication and RBAC', () => {
  it('answers 401 for an unknown token', async () => {
    const status = await expectStatus(() =>
      kubeConfigFor(cp, 'nope').makeApiClient(CoreV1Api).listNamespacedConfigMap({ namespace: 'default' }),
    );
    expect(status.code).toBe(401);
    const raw = await rawRequest(cp, 'GET', '/api/v1/namespaces', { token: 'nope' });
    expect({ code: raw.code, body: raw.body }).toEqual({
      code: 401,
      body: expect.objectContaining({
        kind: 'Status',
        reason: 'Unauthorized',
        message: 'Unauthorized',
        code: 401,
      }),
    });
  });

  it('allows what a RoleBinding grants through a TokenRequest token', async () => {
    const list = await asSa.listNamespacedConfigMap({ namespace: 'default' });
    expect(list.items.map((c) => c.metadata?.name)).toContain('visible');
  });

  it('denies the rest with kube-apiserver messages', async () => {
    const create = await expectStatus(() =>
      asSa.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'x' } } }),
    );
    expect(create).toMatchObject({
      code: 403,
      reason: 'Forbidden',
      message:
        'configmaps is forbidden: User "system:serviceaccount:default:reader" cannot create resource "configmaps" in API group "" in the namespace "default"',
    });
    const other = await expectStatus(() => asSa.listNamespacedConfigMap({ namespace: 'kube-system' }));
    expect(other.message).toContain('in the namespace "kube-system"');
    const nodes = await expectStatus(() => asSa.listNode());
    expect(nodes.message).toBe(
      'nodes is forbidden: User "system:serviceaccount:default:reader" cannot list resource "nodes" in API group "" at the cluster scope',
    );
    const named = await expectStatus(() =>
      asSa.deleteNamespacedConfigMap({ name: 'visible', namespace: 'default' }),
    );
    expect(named.message).toContain('configmaps "visible" is forbidden');
  });

  it('answers SelfSubjectAccessReviews', async () => {
    const authz = kubeConfigFor(cp, token).makeApiClient(AuthorizationV1Api);
    const ask = async (verb: string, resource: string, subresource = '') =>
      (
        await authz.createSelfSubjectAccessReview({
          body: { spec: { resourceAttributes: { verb, resource, subresource, namespace: 'default' } } },
        })
      ).status?.allowed;
    expect(await ask('get', 'configmaps')).toBe(true);
    expect(await ask('delete', 'configmaps')).toBe(false);
    expect(await ask('patch', 'pods', 'status')).toBe(true);
    expect(await ask('patch', 'pods')).toBe(false);
  });

  it('records every request in the audit trail', () => {
    const mine = cp.audit.list((r) => r.user === 'system:serviceaccount:default:reader');
    expect(mine.some((r) => r.verb === 'list' && r.resource === 'configmaps' && r.code === 200)).toBe(true);
    expect(mine.some((r) => r.verb === 'create' && r.resource === 'configmaps' && r.code === 403)).toBe(true);
  });

  it('revokes tokens when the ServiceAccount is deleted', async () => {
    await kubeConfigFor(cp)
      .makeApiClient(CoreV1Api)
      .deleteNamespacedServiceAccount({ name: 'reader', namespace: 'default' });
    expect((await expectStatus(() => asSa.listNamespacedConfigMap({ namespace: 'default' }))).code).toBe(401);
  });
});
