import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KruiseResources, type SidecarSet } from '@kruise/api';
import type { ControlPlane } from '@kruise/control-plane';
import { isNotFound, type KubeClient, type KubeObject, Resources } from '@kruise/runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { kubectl } from '../../../../test/support/kubectl.ts';
import type { ManagerApp } from '../../src/index.ts';
import { sidecarSetHash, sidecarSetHashWithoutImage } from '../../src/workload/sidecarset/index.ts';
import { startEnv } from '../env.ts';

/**
 * The SidecarSet's admission webhooks through the control plane (the CRD of deploy/crds, the
 * webhook configurations kruise-manager generates), driven by kubectl as a user drives them:
 * defaults and hashes on the stored object at both versions, and refusals in upstream's words with
 * nothing stored — a conflicting SidecarSet, a missing pinned revision, patchPodMetadata without
 * the kruise-configuration whitelist, a changed upgradeType.
 */
const SidecarSets = KruiseResources.SidecarSet;
const ALPHA = 'sidecarsets.v1alpha1.apps.kruise.io';
const deniedBy = (message: string) => `admission webhook "vsidecarset.kb.io" denied the request: ${message}`;

let cp: ControlPlane;
let client: KubeClient;
let app: ManagerApp;
let dir: string;
let kubeconfig: string;
beforeAll(async () => {
  ({ cp, client, app } = await startEnv());
  dir = mkdtempSync(join(tmpdir(), 'sidecarset-admission-'));
  kubeconfig = join(dir, 'kubeconfig');
  cp.writeKubeconfig(kubeconfig);
});
afterAll(async () => {
  await app?.stop();
  await cp?.stop();
  rmSync(dir, { recursive: true, force: true });
});

type Ss = SidecarSet & KubeObject;
const sidecarSet = (
  name: string,
  spec: Record<string, unknown> = {},
  apiVersion = 'apps.kruise.io/v1beta1',
) => ({
  apiVersion,
  kind: 'SidecarSet',
  metadata: { name },
  spec: {
    selector: { matchLabels: { app: 'web' } },
    containers: [{ name: 'sidecar', image: 'busybox:1.36' }],
    ...spec,
  },
});
const get = (name: string) => client.get<Ss>(SidecarSets, undefined, name);
const apply = (obj: object) => kubectl(kubeconfig, ['create', '-f', '-'], stringify(obj));

/** kubectl's refusal of a create, after checking that nothing was stored. */
async function refused(obj: { metadata: { name: string } }): Promise<string> {
  const r = await apply(obj);
  expect(r.status).not.toBe(0);
  expect(isNotFound(await get(obj.metadata.name).catch((e) => e))).toBe(true);
  return r.stderr.trim();
}

describe('SidecarSet admission through the API server', () => {
  it('stores upstream’s defaults and the hashes of the defaulted sidecars', async () => {
    expect((await apply(sidecarSet('mesh'))).stderr).toBe('');
    const stored = await get('mesh');
    expect(stored.spec).toMatchObject({
      updateStrategy: { type: 'RollingUpdate', partition: 0, maxUnavailable: 1 },
      revisionHistoryLimit: 10,
      containers: [
        {
          name: 'sidecar',
          podInjectPolicy: 'BeforeAppContainer',
          upgradeStrategy: { upgradeType: 'ColdUpgrade' },
          shareVolumePolicy: { type: 'disabled' },
          imagePullPolicy: 'IfNotPresent',
          terminationMessagePolicy: 'File',
        },
      ],
    });
    expect(stored.metadata?.annotations).toMatchObject({
      'kruise.io/sidecarset-hash': sidecarSetHash(stored),
      'kruise.io/sidecarset-hash-without-image': sidecarSetHashWithoutImage(stored),
    });
  });

  it('refuses a SidecarSet injecting a container another one on the same pods injects', async () => {
    const message = await refused(
      sidecarSet('logs', { selector: { matchLabels: { app: 'web', tier: 'front' } } }),
    );
    expect(message).toContain(
      deniedBy('spec.containers: Invalid value: "sidecar": container sidecar already exist in mesh'),
    );
    // on other pods the same name is fine
    expect((await apply(sidecarSet('db-logs', { selector: { matchLabels: { app: 'db' } } }))).stderr).toBe(
      '',
    );
  });

  it('defaults and validates a v1alpha1 SidecarSet, its namespace read as a namespaceSelector', async () => {
    const alpha = sidecarSet(
      'alpha',
      { namespace: 'team-a', containers: [{ name: 'sidecar', image: 'busybox:1' }] },
      'apps.kruise.io/v1alpha1',
    );
    // mesh selects the same pods in every namespace: the name conflicts at v1alpha1 too
    expect(await refused(alpha)).toContain(
      deniedBy('spec.containers: Invalid value: "sidecar": container sidecar already exist in mesh'),
    );
    alpha.spec.containers = [{ name: 'alpha-agent', image: 'busybox:1' }];
    expect((await apply(alpha)).stderr).toBe('');
    const stored = await get('alpha');
    expect(stored.spec?.namespaceSelector).toEqual({
      matchLabels: { 'kubernetes.io/metadata.name': 'team-a' },
    });
    expect(stored.spec?.containers?.[0]).toMatchObject({ podInjectPolicy: 'BeforeAppContainer' });
    const atAlpha = JSON.parse((await kubectl(kubeconfig, ['get', ALPHA, 'alpha', '-o', 'json'])).stdout);
    expect(atAlpha.spec.namespace).toBeUndefined();
    expect(atAlpha.metadata.annotations['kruise.io/sidecarset-hash']).toBe(sidecarSetHash(stored));
  });

  it('admits a revision pinned by name in the Kruise namespace and refuses one that is not there', async () => {
    await client.create(Resources.ControllerRevision, {
      metadata: {
        name: 'pinned-7d9f',
        namespace: 'kruise-system',
        labels: { 'kruise.io/sidecarset-name': 'pinned' },
      },
      data: {},
      revision: 1,
    } as KubeObject);
    const spec = (revisionName: string) => ({
      selector: { matchLabels: { app: 'pinned' } },
      injectionStrategy: { revision: { revisionName } },
    });
    expect(await refused(sidecarSet('pinned', spec('pinned-0000')))).toContain(
      deniedBy(
        'revision: Invalid value: null: Cannot find specific ControllerRevision, err: controllerrevisions.apps "pinned-0000" not found',
      ),
    );
    expect((await apply(sidecarSet('pinned', spec('pinned-7d9f')))).stderr).toBe('');
    expect((await get('pinned')).spec?.injectionStrategy).toEqual({
      revision: { revisionName: 'pinned-7d9f', policy: 'Always' },
    });
  });

  it('refuses patchPodMetadata until kruise-configuration allows the annotation', async () => {
    const obj = sidecarSet('patcher', {
      selector: { matchLabels: { app: 'patched' } },
      patchPodMetadata: [{ annotations: { 'oom.io/score': '100' }, patchPolicy: 'Overwrite' }],
    });
    expect(await refused(obj)).toContain(
      deniedBy('spec.patchPodMetadata: Required value: SidecarSet patch metadata whitelist not found'),
    );
    await client.create(Resources.ConfigMap, {
      metadata: { name: 'kruise-configuration', namespace: 'kruise-system' },
      data: {
        SidecarSet_PatchPodMetadata_WhiteList: JSON.stringify({
          rules: [{ allowedAnnotationKeyExprs: ['^oom\\.io/'] }],
        }),
      },
    } as KubeObject);
    expect((await apply(obj)).stderr).toBe('');
  });

  it('refuses an update changing a container’s upgradeType, and keeps the stored object', async () => {
    const r = await kubectl(kubeconfig, [
      'patch',
      'sidecarsets.apps.kruise.io',
      'mesh',
      '--type=json',
      '-p',
      JSON.stringify([
        { op: 'replace', path: '/spec/containers/0/upgradeStrategy/upgradeType', value: 'HotUpgrade' },
      ]),
    ]);
    expect(r.stderr).toContain(
      deniedBy(
        'spec.containers.upgradeStrategy.upgradeType: Invalid value: "sidecar": container sidecar upgradeType is immutable',
      ),
    );
    expect((await get('mesh')).spec?.containers?.[0]?.upgradeStrategy).toEqual({
      upgradeType: 'ColdUpgrade',
    });
    // an image change goes through, and moves the hash
    const before = (await get('mesh')).metadata?.annotations?.['kruise.io/sidecarset-hash'];
    const ok = await kubectl(kubeconfig, [
      'patch',
      'sidecarsets.apps.kruise.io',
      'mesh',
      '--type=json',
      '-p',
      JSON.stringify([{ op: 'replace', path: '/spec/containers/0/image', value: 'busybox:1.37' }]),
    ]);
    expect(ok.stderr).toBe('');
    const after = await get('mesh');
    expect(after.metadata?.annotations?.['kruise.io/sidecarset-hash']).not.toBe(before);
    expect(after.metadata?.annotations?.['kruise.io/sidecarset-hash']).toBe(sidecarSetHash(after));
  });
});
