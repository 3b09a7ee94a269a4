import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KruiseResources, type StatefulSet } from '@kruise/api';
import type { ControlPlane } from '@kruise/control-plane';
import { isNotFound, type KubeClient, type KubeObject } from '@kruise/runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { kubectl } from '../../../test/support/kubectl.ts';
import type { ManagerApp } from '../src/index.ts';
import { startEnv } from './env.ts';
import { DEFAULT_ROLLING_UPDATE } from './statefulset-defaults.ts';

/**
 * Advanced StatefulSet's defaulting and validating webhooks through the control plane (the CRD of
 * deploy/crds, the webhook configurations kruise-manager generates): defaults on the stored
 * object, refusals in upstream's words with nothing stored, at v1beta1 and at v1alpha1.
 */
const StatefulSets = KruiseResources.StatefulSet;
const ALPHA = 'statefulsets.v1alpha1.apps.kruise.io';

let cp: ControlPlane;
let client: KubeClient;
let app: ManagerApp;
let dir: string;
let kubeconfig: string;
beforeAll(async () => {
  ({ cp, client, app } = await startEnv());
  dir = mkdtempSync(join(tmpdir(), 'asts-webhooks-'));
  kubeconfig = join(dir, 'kubeconfig');
  cp.writeKubeconfig(kubeconfig);
});
afterAll(async () => {
  await app?.stop();
  await cp?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const statefulSet = (
  name: string,
  spec: Record<string, unknown> = {},
  apiVersion = 'apps.kruise.io/v1beta1',
) => ({
  apiVersion,
  kind: 'StatefulSet',
  metadata: { name, namespace: 'default' },
  spec: {
    replicas: 0,
    selector: { matchLabels: { app: name } },
    template: {
      metadata: { labels: { app: name } },
      spec: { containers: [{ name: 'main', image: 'busybox:v1' }] },
    },
    ...spec,
  },
});
type Sts = StatefulSet & KubeObject;
const create = (obj: object) => client.create(StatefulSets, obj as KubeObject) as Promise<Sts>;
const get = (name: string) => client.get<Sts>(StatefulSets, 'default', name);
const deniedBy = (hook: string, message: string) =>
  `admission webhook "${hook}" denied the request: ${message}`;

/** The refusal of a create, after checking that nothing was stored. */
async function refusal(obj: { metadata: { name: string } }): Promise<{ code: number; message: string }> {
  const err = await create(obj).catch((e) => e);
  expect(err?.code, 'expected a denial').toBeGreaterThanOrEqual(400);
  const stored = await get(obj.metadata.name).catch((e) => e);
  expect(isNotFound(stored), 'nothing stored').toBe(true);
  return { code: err.code, message: err.message };
}

describe('Advanced StatefulSet defaulting (mstatefulset.kb.io)', () => {
  it('stores upstream’s defaults and the pod-template defaults', async () => {
    const { replicas: _unset, ...spec } = statefulSet('defaults').spec;
    const sts = await create({ ...statefulSet('defaults'), spec });
    expect(sts.spec).toMatchObject({
      replicas: 1,
      podManagementPolicy: 'OrderedReady',
      updateStrategy: {
        type: 'RollingUpdate',
        rollingUpdate: DEFAULT_ROLLING_UPDATE,
      },
      revisionHistoryLimit: 10,
      persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Retain', whenScaled: 'Retain' },
      volumeClaimUpdateStrategy: {},
    });
    expect(sts.spec!.template.spec).toMatchObject({
      containers: [{ name: 'main', imagePullPolicy: 'Always', terminationMessagePolicy: 'File' }],
      restartPolicy: 'Always',
      dnsPolicy: 'ClusterFirst',
      schedulerName: 'default-scheduler',
    });
    // The InPlaceUpdateReady readiness gate is the user's to add, not the webhook's.
    expect(sts.spec!.template.spec!.readinessGates).toBeUndefined();
  });

  it('defaults an object created at v1alpha1 with what v1alpha1 has', async () => {
    const r = await kubectl(
      kubeconfig,
      ['create', '-f', '-'],
      stringify(
        statefulSet('alpha', { updateStrategy: { type: 'RollingUpdate' } }, 'apps.kruise.io/v1alpha1'),
      ),
    );
    expect(r.stderr).toBe('');
    const alpha = JSON.parse(
      (await kubectl(kubeconfig, ['get', ALPHA, 'alpha', '-n', 'default', '-o', 'json'])).stdout,
    );
    expect(alpha.spec.updateStrategy.rollingUpdate).toEqual(DEFAULT_ROLLING_UPDATE);
    expect(alpha.spec.podManagementPolicy).toBe('OrderedReady');
    // v1beta1-only defaults do not reach an object written at v1alpha1.
    expect((await get('alpha')).spec!.persistentVolumeClaimRetentionPolicy).toBeUndefined();
  });
});

describe('Advanced StatefulSet validation (vstatefulset.kb.io)', () => {
  it.each([
    [
      'an unknown podManagementPolicy',
      { podManagementPolicy: 'Sometimes' },
      "spec.podManagementPolicy: Invalid value: \"Sometimes\": must be 'OrderedReady' or 'Parallel'",
    ],
    [
      'maxUnavailable above 1 with OrderedReady',
      { updateStrategy: { rollingUpdate: { maxUnavailable: 2 } } },
      'spec.updateStrategy.rollingUpdate.maxUnavailable: Invalid value: intstr.IntOrString{Type:0, IntVal:2, StrVal:""}: can only work with Parallel PodManagementPolicyType',
    ],
    [
      'minReadySeconds above 300',
      { updateStrategy: { rollingUpdate: { minReadySeconds: 301 } } },
      'spec.updateStrategy.rollingUpdate.minReadySeconds: Invalid value: 301: must be no more than 300 seconds',
    ],
    [
      'InPlaceIfPossible without the InPlaceUpdateReady gate',
      { updateStrategy: { rollingUpdate: { podUpdatePolicy: 'InPlaceIfPossible' } } },
      'spec.template.spec.readinessGates: Invalid value: []v1.PodReadinessGate(nil): must contains InPlaceUpdateReady when podUpdatePolicy is InPlaceIfPossible',
    ],
    [
      'a reserved range that is no range',
      { reserveOrdinals: ['2-x'] },
      '[spec: Invalid value: []intstr.IntOrString{intstr.IntOrString{Type:1, IntVal:0, StrVal:"2-x"}}: 0 th reserve ordinal is not a valid range: 2-x, spec: Invalid value: []intstr.IntOrString{intstr.IntOrString{Type:1, IntVal:0, StrVal:"2-x"}}: 0 th reserve ordinal is invalid: 2-x, err = strconv.Atoi: parsing "x": invalid syntax]',
    ],
    [
      'an empty selector',
      { selector: {} },
      'spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string(nil), MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: empty selector is invalid for statefulset',
    ],
  ])('refuses %s with upstream’s message and stores nothing', async (_what, spec, message) => {
    expect(await refusal(statefulSet('bad', spec))).toEqual({
      code: 422,
      message: deniedBy('vstatefulset.kb.io', message),
    });
  });

  it('refuses through kubectl at v1alpha1 too', async () => {
    const r = await kubectl(
      kubeconfig,
      ['create', '-f', '-'],
      stringify(statefulSet('bad-alpha', { podManagementPolicy: 'Sometimes' }, 'apps.kruise.io/v1alpha1')),
    );
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain(
      deniedBy(
        'vstatefulset.kb.io',
        "spec.podManagementPolicy: Invalid value: \"Sometimes\": must be 'OrderedReady' or 'Parallel'",
      ),
    );
    expect(isNotFound(await get('bad-alpha').catch((e) => e))).toBe(true);
  });

  it('forbids changing the selector, and anything but images with InPlaceOnly', async () => {
    const sts = await create(
      statefulSet('inplace', {
        updateStrategy: { rollingUpdate: { podUpdatePolicy: 'InPlaceOnly' } },
        template: {
          metadata: { labels: { app: 'inplace' } },
          spec: {
            readinessGates: [{ conditionType: 'InPlaceUpdateReady' }],
            containers: [{ name: 'main', image: 'busybox:v1' }],
          },
        },
      }),
    );
    // Patches without a resourceVersion: the StatefulSet controller writes the status meanwhile.
    const patch = (body: object) =>
      client.mergePatch(StatefulSets, 'default', 'inplace', body).catch((e) => e) as Promise<Error>;
    const err = await patch({
      spec: { selector: { matchLabels: { extra: 'x' } }, template: { metadata: { labels: { extra: 'x' } } } },
    });
    expect(err.message).toBe(
      deniedBy(
        'vstatefulset.kb.io',
        "spec: Forbidden: updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'reserveOrdinals', 'lifecycle', 'revisionHistoryLimit', 'persistentVolumeClaimRetentionPolicy', `volumeClaimTemplates`, `VolumeClaimUpdateStrategy` and 'updateStrategy' are forbidden",
      ),
    );
    const err2 = await patch({
      spec: {
        template: {
          spec: { containers: [{ name: 'main', image: 'busybox:v1', env: [{ name: 'A', value: '1' }] }] },
        },
      },
    });
    expect(err2.message).toBe(
      deniedBy(
        'vstatefulset.kb.io',
        'invalid template modified with InPlaceOnly strategy: add /containers/0/env, currently only image update is allowed for InPlaceOnly',
      ),
    );
    expect((await get('inplace')).spec!.selector).toEqual(sts.spec!.selector);
    expect((await get('inplace')).spec!.template.spec!.containers[0]!.env).toBeUndefined();
    const updated = (await client.mergePatch(StatefulSets, 'default', 'inplace', {
      spec: { replicas: 2, template: { spec: { containers: [{ name: 'main', image: 'busybox:v2' }] } } },
    })) as Sts;
    expect(updated.spec!.template.spec!.containers[0]!.image).toBe('busybox:v2');
    expect(updated.spec!.replicas).toBe(2);
  });

  it('lets a protected deletion through while gate ResourcesDeletionProtection is off', async () => {
    await create(statefulSet('protected', {}));
    await client.mergePatch(StatefulSets, 'default', 'protected', {
      metadata: { labels: { 'policy.kruise.io/delete-protection': 'Cascading' } },
      spec: { replicas: 1 },
    });
    await client.delete(StatefulSets, 'default', 'protected');
  });
});
