import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type DaemonSet, KruiseResources } from '@kruise/api';
import type { ControlPlane } from '@kruise/control-plane';
import { isNotFound, type KubeClient, type KubeObject } from '@kruise/runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { kubectl } from '../../../test/support/kubectl.ts';
import type { ManagerApp } from '../src/index.ts';
import { startEnv } from './env.ts';

/**
 * Advanced DaemonSet's defaulting and validating webhooks and its conversion, through the control
 * plane (the CRD of deploy/crds, the webhook configurations kruise-manager generates): upstream's
 * defaults on the stored object, refusals in upstream's words and codes with nothing stored, and
 * v1alpha1's deprecated forms read back as v1beta1 has them.
 */
const DaemonSets = KruiseResources.DaemonSet;
const ALPHA = 'daemonsets.v1alpha1.apps.kruise.io';
const BETA = 'daemonsets.v1beta1.apps.kruise.io';

let cp: ControlPlane;
let client: KubeClient;
let app: ManagerApp;
let dir: string;
let kubeconfig: string;
beforeAll(async () => {
  ({ cp, client, app } = await startEnv());
  dir = mkdtempSync(join(tmpdir(), 'ads-webhooks-'));
  kubeconfig = join(dir, 'kubeconfig');
  cp.writeKubeconfig(kubeconfig);
});
afterAll(async () => {
  await app?.stop();
  await cp?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const daemonSet = (
  name: string,
  spec: Record<string, unknown> = {},
  apiVersion = 'apps.kruise.io/v1beta1',
) => ({
  apiVersion,
  kind: 'DaemonSet',
  metadata: { name, namespace: 'default' },
  spec: {
    selector: { matchLabels: { app: name } },
    template: {
      metadata: { labels: { app: name } },
      // no node matches: the controller creates no pods for these objects
      spec: { nodeSelector: { none: 'none' }, containers: [{ name: 'main', image: 'busybox:v1' }] },
    },
    ...spec,
  },
});
type Ds = DaemonSet & KubeObject;
const create = (obj: object) => client.create(DaemonSets, obj as KubeObject) as Promise<Ds>;
const get = (name: string) => client.get<Ds>(DaemonSets, 'default', name);
const getAt = async (resource: string, name: string) =>
  JSON.parse((await kubectl(kubeconfig, ['get', resource, name, '-n', 'default', '-o', 'json'])).stdout);
const deniedBy = (message: string) => `admission webhook "vdaemonset.kb.io" denied the request: ${message}`;
const rolling = (r: Record<string, unknown>, type = 'RollingUpdate') => ({
  updateStrategy: { type, rollingUpdate: r },
});

/** The refusal of a create, after checking that nothing was stored. */
async function refusal(obj: { metadata: { name: string } }): Promise<{ code: number; message: string }> {
  const err = await create(obj).catch((e) => e);
  expect(err?.code, 'expected a denial').toBeGreaterThanOrEqual(400);
  const stored = await get(obj.metadata.name).catch((e) => e);
  expect(isNotFound(stored), 'nothing stored').toBe(true);
  return { code: err.code, message: err.message };
}

describe('Advanced DaemonSet defaulting (mdaemonset.kb.io)', () => {
  it('stores upstream’s defaults and leaves the pod template as written', async () => {
    const ds = await create(daemonSet('defaults'));
    expect(ds.spec).toMatchObject({
      burstReplicas: 250,
      revisionHistoryLimit: 10,
      updateStrategy: {
        type: 'RollingUpdate',
        rollingUpdate: { rollingUpdateType: 'Standard', maxUnavailable: 1, maxSurge: 0 },
      },
    });
    expect(ds.spec!.template.spec).toEqual({
      nodeSelector: { none: 'none' },
      containers: [{ name: 'main', image: 'busybox:v1', resources: {} }],
    });
  });

  it('keeps a maxSurge the user set and does not add maxUnavailable beside it', async () => {
    const ds = await create(daemonSet('surge', rolling({ maxSurge: '20%' })));
    expect(ds.spec!.updateStrategy!.rollingUpdate).toEqual({
      rollingUpdateType: 'Standard',
      maxSurge: '20%',
    });
  });

  it('turns v1alpha1’s Surging into Standard with maxSurge 1, and its progressive annotation into partitionedScaling', async () => {
    const alpha = daemonSet('surging', rolling({ rollingUpdateType: 'Surging' }), 'apps.kruise.io/v1alpha1');
    (alpha.metadata as Record<string, unknown>).annotations = {
      'daemonset.kruise.io/progressive-create-pod': 'true',
    };
    const r = await kubectl(kubeconfig, ['create', '-f', '-'], stringify(alpha));
    expect(r.stderr).toBe('');
    const beta = await getAt(BETA, 'surging');
    expect(beta.spec.updateStrategy.rollingUpdate).toEqual({
      rollingUpdateType: 'Standard',
      maxSurge: 1,
      maxUnavailable: 0,
    });
    expect(beta.spec.scaleStrategy).toEqual({ partitionedScaling: true });
    const back = await getAt(ALPHA, 'surging');
    expect(back.spec.scaleStrategy).toBeUndefined();
    expect(back.metadata.annotations['daemonset.kruise.io/progressive-create-pod']).toBe('true');
  });
});

describe('Advanced DaemonSet validation (vdaemonset.kb.io)', () => {
  it.each([
    [
      'maxSurge beside a non-zero maxUnavailable',
      rolling({ maxUnavailable: 1, maxSurge: 1 }),
      'spec.updateStrategy.rollingUpdate.maxSurge: Invalid value: intstr.IntOrString{Type:0, IntVal:1, StrVal:""}: may not be set when maxUnavailable is non-zero',
    ],
    [
      'both zero',
      rolling({ maxUnavailable: 0, maxSurge: '0%' }),
      'spec.updateStrategy.rollingUpdate.maxUnavailable: Required value: cannot be 0 when maxSurge is 0',
    ],
    [
      'maxSurge with InPlaceIfPossible',
      rolling({ rollingUpdateType: 'InPlaceIfPossible', maxSurge: 1 }),
      'spec.updateStrategy.rollingUpdate.maxSurge: Required value: must be 0 for InPlaceIfPossible type',
    ],
    [
      'an unknown rolling update type',
      rolling({ rollingUpdateType: 'Surging', maxUnavailable: 1 }),
      'spec.updateStrategy.rollingUpdate.rollingUpdate.type: Unsupported value: "Surging": supported values: "Standard", "InPlaceIfPossible"',
    ],
    [
      'a partition above 100%',
      rolling({ maxUnavailable: 1, partition: '101%' }),
      'spec.updateStrategy.rollingUpdate.rollingUpdate.partition: Invalid value: intstr.IntOrString{Type:1, IntVal:0, StrVal:"101%"}: must not be greater than 100%',
    ],
    [
      'an unknown update strategy',
      { updateStrategy: { type: 'Sometimes' } },
      'spec.updateStrategy: Unsupported value: v1beta1.DaemonSetUpdateStrategy{Type:"Sometimes", RollingUpdate:(*v1beta1.RollingUpdateDaemonSet)(nil)}: supported values: "RollingUpdate", "OnDelete"',
    ],
    [
      'an inPlaceUpdate hook',
      { lifecycle: { inPlaceUpdate: { labelsHandler: { a: 'b' } } } },
      'spec.lifecycle.inPlaceUpdate: Forbidden: inPlaceUpdate hook has not supported yet',
    ],
    [
      'a selector the template does not match',
      { selector: { matchLabels: { app: 'other' } } },
      'spec.template.metadata.labels: Invalid value: map[string]string{"app":"mismatch"}: `selector` does not match template `labels`',
    ],
    [
      'an empty selector',
      { selector: {} },
      'spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string(nil), MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: empty selector is invalid for daemonset',
    ],
  ])('refuses %s with a 500 and upstream’s words', async (what, spec, message) => {
    const name = what === 'a selector the template does not match' ? 'mismatch' : 'refused';
    const { code, message: text } = await refusal(daemonSet(name, spec));
    expect(code).toBe(500);
    expect(text).toBe(deniedBy(message));
  });

  it('refuses a restartPolicy other than Always and an activeDeadlineSeconds, together', async () => {
    const obj = daemonSet('pod-rules');
    Object.assign(obj.spec.template.spec, { restartPolicy: 'Never', activeDeadlineSeconds: 5 });
    const { message } = await refusal(obj);
    expect(message).toBe(
      deniedBy(
        '[spec.template.spec.restartPolicy: Unsupported value: "Never": supported values: "Always", spec.template.spec.activeDeadlineSeconds: Forbidden: activeDeadlineSeconds in DaemonSet is not Supported]',
      ),
    );
  });

  it('refuses a change of the selector with a 422 and keeps the stored object', async () => {
    const ds = await create(daemonSet('immutable'));
    const changed = structuredClone(ds);
    changed.spec!.selector = { matchLabels: { app: 'immutable', tier: 'x' } };
    changed.spec!.template.metadata!.labels = { app: 'immutable', tier: 'x' };
    const err = await client.update(DaemonSets, changed as KubeObject).catch((e) => e);
    expect(err.code).toBe(422);
    expect(err.message).toBe(
      deniedBy(
        "spec: Forbidden: updates to daemonset spec for fields other than 'BurstReplicas', 'template', 'lifecycle', 'scaleStrategy', 'updateStrategy', 'minReadySeconds', and 'revisionHistoryLimit' are forbidden",
      ),
    );
    expect((await get('immutable')).spec!.selector).toEqual({ matchLabels: { app: 'immutable' } });
    // the fields that may change do
    changed.spec = { ...ds.spec!, minReadySeconds: 3, burstReplicas: '50%' };
    const updated = (await client.update(DaemonSets, changed as KubeObject)) as Ds;
    expect(updated.spec).toMatchObject({ minReadySeconds: 3, burstReplicas: '50%' });
  });

  it('answers a v1alpha1 update with v1alpha1’s words', async () => {
    const alpha = daemonSet('alpha-update', {}, 'apps.kruise.io/v1alpha1');
    expect((await kubectl(kubeconfig, ['create', '-f', '-'], stringify(alpha))).stderr).toBe('');
    const r = await kubectl(kubeconfig, [
      'patch',
      ALPHA,
      'alpha-update',
      '-n',
      'default',
      '--type=merge',
      '-p',
      JSON.stringify({
        spec: { selector: { matchLabels: { tier: 'x' } }, template: { metadata: { labels: { tier: 'x' } } } },
      }),
    ]);
    expect(r.stderr).toContain(
      deniedBy(
        "spec: Forbidden: updates to daemonset spec for fields other than 'BurstReplicas', 'template', 'lifecycle',  'updateStrategy', 'minReadySeconds', and 'revisionHistoryLimit' are forbidden",
      ),
    );
    expect((await get('alpha-update')).spec!.selector).toEqual({ matchLabels: { app: 'alpha-update' } });
  });
});
