import { CoreV1Api, RbacAuthorizationV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TokenAuthenticator } from '../src/auth/tokens.ts';
import type { ControlPlane } from '../src/index.ts';
import { kubeConfigFor, rawRequest, startControlPlane } from './helpers.ts';

let cp: ControlPlane;
let core: CoreV1Api;

/** The claims of a JWT (its middle part). */
const claimsOf = (token: string) =>
  JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8'));

/** POSTs a TokenRequest for `default/<sa>`, as the kubelet does for a projected serviceAccountToken. */
const requestToken = (sa: string, spec: object) =>
  rawRequest(cp, 'POST', `/api/v1/namespaces/default/serviceaccounts/${sa}/token`, {
    body: JSON.stringify({ apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec }),
  });

/** What the API server answers a token on a request it may serve (listing pods). */
const statusWith = async (token: string) =>
  (await rawRequest(cp, 'GET', '/api/v1/namespaces/default/pods', { token })).code;

const createPod = async (name: string, serviceAccountName?: string) =>
  core.createNamespacedPod({
    namespace: 'default',
    body: {
      metadata: { name },
      spec: {
        ...(serviceAccountName ? { serviceAccountName } : {}),
        containers: [{ name: 'c', image: 'nginx' }],
      },
    },
  });

beforeAll(async () => {
  cp = await startControlPlane({ scheduler: false });
  const kc = kubeConfigFor(cp);
  core = kc.makeApiClient(CoreV1Api);
  const rbac = kc.makeApiClient(RbacAuthorizationV1Api);
  await rbac.createNamespacedRole({
    namespace: 'default',
    body: {
      metadata: { name: 'pod-reader' },
      rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['list'] }],
    },
  });
  await rbac.createNamespacedRoleBinding({
    namespace: 'default',
    body: {
      metadata: { name: 'default-reads-pods' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'pod-reader' },
      subjects: [{ kind: 'ServiceAccount', name: 'default', namespace: 'default' }],
    },
  });
  await core.createNamespacedServiceAccount({ namespace: 'default', body: { metadata: { name: 'other' } } });
});
afterAll(() => cp.stop());

describe('TokenRequest bound to a pod', () => {
  it('issues a token naming the pod that authenticates until the pod is gone (401 after)', async () => {
    const pod = await createPod('bound');
    const sa = await core.readNamespacedServiceAccount({ namespace: 'default', name: 'default' });
    const r = await requestToken('default', {
      expirationSeconds: 600,
      boundObjectRef: { apiVersion: 'v1', kind: 'Pod', name: 'bound', uid: pod.metadata!.uid },
    });
    expect(r.code).toBe(201);
    expect(r.body).toMatchObject({
      kind: 'TokenRequest',
      apiVersion: 'authentication.k8s.io/v1',
      spec: {
        audiences: ['https://kubernetes.default.svc.cluster.local'],
        expirationSeconds: 600,
        boundObjectRef: { apiVersion: 'v1', kind: 'Pod', name: 'bound', uid: pod.metadata!.uid },
      },
    });
    const expires = Date.parse(r.body.status.expirationTimestamp);
    expect(Math.abs(expires - (Date.now() + 600_000))).toBeLessThan(5_000);
    const claims = claimsOf(r.body.status.token);
    expect(claims).toMatchObject({
      iss: 'https://kubernetes.default.svc.cluster.local',
      sub: 'system:serviceaccount:default:default',
      aud: ['https://kubernetes.default.svc.cluster.local'],
      exp: Math.floor(expires / 1000),
      'kubernetes.io': {
        namespace: 'default',
        pod: { name: 'bound', uid: pod.metadata!.uid },
        serviceaccount: { name: 'default', uid: sa.metadata!.uid },
      },
    });
    expect(await statusWith(r.body.status.token)).toBe(200);
    await core.deleteNamespacedPod({ namespace: 'default', name: 'bound' });
    expect(await statusWith(r.body.status.token)).toBe(401);
    // A new pod of the same name is another pod: the token stays refused.
    await createPod('bound');
    expect(await statusWith(r.body.status.token)).toBe(401);
  });

  it('extends a 3607 s token for the API server to a year (warnafter), yet says to refresh within the hour', async () => {
    const pod = await createPod('extended');
    const r = await requestToken('default', {
      expirationSeconds: 3607,
      boundObjectRef: { apiVersion: 'v1', kind: 'Pod', name: 'extended', uid: pod.metadata!.uid },
    });
    expect(r.code).toBe(201);
    const now = Date.now() / 1000;
    const claims = claimsOf(r.body.status.token);
    expect(Math.abs(claims.exp - (now + 365 * 24 * 3600))).toBeLessThan(5);
    expect(Math.abs(claims['kubernetes.io'].warnafter - (now + 3607))).toBeLessThan(5);
    expect(Math.abs(Date.parse(r.body.status.expirationTimestamp) / 1000 - (now + 3607))).toBeLessThan(5);
    expect(r.body.spec.expirationSeconds).toBe(3607);
  });

  it('honours audiences: a token for another audience does not authenticate to the API server', async () => {
    const pod = await createPod('vault-user');
    const r = await requestToken('default', {
      audiences: ['vault'],
      boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'vault-user', uid: pod.metadata!.uid },
    });
    expect(r.code).toBe(201);
    expect(r.body.spec).toMatchObject({ audiences: ['vault'], expirationSeconds: 3600 });
    expect(claimsOf(r.body.status.token).aud).toEqual(['vault']);
    expect(await statusWith(r.body.status.token)).toBe(401);
  });

  it('refuses bindings kube-apiserver refuses, in its words', async () => {
    const pod = await createPod('checked');
    const cases: [object, number, string][] = [
      [
        { boundObjectRef: { apiVersion: 'v1', kind: 'Pod', name: 'checked', uid: 'not-its-uid' } },
        409,
        'Operation cannot be fulfilled on Pod "checked": the UID in the bound object reference (not-its-uid) does not match the UID in record. The object might have been deleted and then recreated',
      ],
      [
        { boundObjectRef: { apiVersion: 'v1', kind: 'Pod', name: 'nowhere' } },
        404,
        'pods "nowhere" not found',
      ],
      [
        { boundObjectRef: { apiVersion: 'v1', kind: 'Node', name: 'n1' } },
        400,
        'cannot bind token to object of type /v1, Kind=Node',
      ],
      [
        { expirationSeconds: 599 },
        422,
        'TokenRequest.authentication.k8s.io "" is invalid: spec.expirationSeconds: Invalid value: 599: may not specify a duration less than 10 minutes',
      ],
    ];
    for (const [spec, code, message] of cases) {
      const r = await requestToken('default', spec);
      expect({ code: r.code, message: r.body.message }).toEqual({ code, message });
    }
    const other = await requestToken('other', {
      boundObjectRef: { apiVersion: 'v1', kind: 'Pod', name: 'checked', uid: pod.metadata!.uid },
    });
    expect({ code: other.code, message: other.body.message }).toEqual({
      code: 400,
      message:
        'cannot bind token for serviceaccount "other" to pod running with different serviceaccount name.',
    });
  });
});

describe('ServiceAccount token expiry', () => {
  it('accepts a token up to a minute past its exp, as kube-apiserver does, and not after', () => {
    let now = Date.parse('2026-01-01T00:00:00Z');
    const tokens = new TokenAuthenticator(undefined, () => now);
    const sa = { metadata: { name: 'default', namespace: 'default', uid: 'sa-uid' } };
    const lookup = (resource: string) => (resource === 'serviceaccounts' ? sa : undefined);
    const { token, expiresAt } = tokens.issueServiceAccountToken({
      namespace: 'default',
      serviceAccount: { name: 'default', uid: 'sa-uid' },
      audiences: ['https://kubernetes.default.svc.cluster.local'],
      expirationSeconds: 600,
    });
    expect(expiresAt.toISOString()).toBe('2026-01-01T00:10:00.000Z');
    expect(tokens.authenticate(token, lookup)?.username).toBe('system:serviceaccount:default:default');
    // Altered claims break the signature.
    const [h, p, sig] = token.split('.');
    const forged = Buffer.from(
      JSON.stringify({ ...JSON.parse(Buffer.from(p!, 'base64url').toString()), exp: 4102444800 }),
    ).toString('base64url');
    expect(tokens.authenticate(`${h}.${forged}.${sig}`, lookup)).toBeUndefined();
    now += 600_000 + 59_000;
    expect(tokens.authenticate(token, lookup)?.username).toBe('system:serviceaccount:default:default');
    now += 2_000;
    expect(tokens.authenticate(token, lookup)).toBeUndefined();
  });
});
