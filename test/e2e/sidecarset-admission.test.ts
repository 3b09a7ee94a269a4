import { KruiseResources } from '@kruise/api';
import { isNotFound } from '@kruise/runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { kubectl } from '../support/kubectl.ts';
import { type System, startSystem } from './env.ts';

/**
 * The SidecarSet's admission webhooks end to end: kruise-manager as a process behind its webhook
 * Service, a user's kubectl in front. Conflicting SidecarSets are refused with upstream's message
 * and nothing is stored; defaults and hashes are on what is stored; a native sidecar under
 * RollingUpdate is admitted (upgraded in place here, refused upstream).
 */
let sys: System;
const deniedBy = (message: string) => `admission webhook "vsidecarset.kb.io" denied the request: ${message}`;

beforeAll(async () => {
  sys = await startSystem('ss-admission-node');
});
afterAll(async () => {
  await sys?.stop();
});

const sidecarSet = (name: string, spec: Record<string, unknown>, apiVersion = 'apps.kruise.io/v1beta1') => ({
  apiVersion,
  kind: 'SidecarSet',
  metadata: { name },
  spec: {
    selector: { matchLabels: { app: 'e2e-web' } },
    containers: [{ name: 'e2e-proxy', image: `${sys.registry}/busybox:v1` }],
    ...spec,
  },
});
const create = (obj: object) => kubectl(sys.kubeconfig, ['create', '-f', '-'], stringify(obj));
const stored = (name: string) => sys.client.get(KruiseResources.SidecarSet, undefined, name).catch((e) => e);

describe('SidecarSet admission on the local stack', () => {
  it('stores the first SidecarSet defaulted and hashed, and refuses a second injecting the same container', async () => {
    const first = await create(sidecarSet('e2e-mesh', {}));
    expect(first.status, first.stderr).toBe(0);
    const mesh = await stored('e2e-mesh');
    expect(mesh.spec.containers[0]).toMatchObject({ podInjectPolicy: 'BeforeAppContainer' });
    expect(mesh.metadata.annotations['kruise.io/sidecarset-hash']).toMatch(/^[a-z0-9]{64}$/);

    // a narrower selector on the same key still meets e2e-mesh's pods
    const second = await create(
      sidecarSet('e2e-logs', { selector: { matchLabels: { app: 'e2e-web', tier: 'front' } } }),
    );
    expect(second.status).not.toBe(0);
    expect(second.stderr).toContain(
      deniedBy('spec.containers: Invalid value: "e2e-proxy": container e2e-proxy already exist in e2e-mesh'),
    );
    expect(isNotFound(await stored('e2e-logs'))).toBe(true);

    // a v1alpha1 SidecarSet is checked the same way
    const alpha = await create(sidecarSet('e2e-alpha', { namespace: 'default' }, 'apps.kruise.io/v1alpha1'));
    expect(alpha.stderr).toContain(
      deniedBy('spec.containers: Invalid value: "e2e-proxy": container e2e-proxy already exist in e2e-mesh'),
    );
  });

  it('admits a native sidecar under RollingUpdate', async () => {
    const r = await create(
      sidecarSet('e2e-native', {
        selector: { matchLabels: { app: 'e2e-native' } },
        containers: [],
        initContainers: [
          { name: 'e2e-native', image: `${sys.registry}/busybox:v1`, restartPolicy: 'Always' },
        ],
      }),
    );
    expect(r.status, r.stderr).toBe(0);
    expect((await stored('e2e-native')).spec.updateStrategy.type).toBe('RollingUpdate');
  });
});
