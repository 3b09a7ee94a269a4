import { type CloneSet, KruiseResources } from '@kruise/api';
import type { ControlPlane } from '@kruise/control-plane';
import type { KubeClient, KubeObject } from '@kruise/runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ManagerApp } from '../src/index.ts';
import { startEnv } from './env.ts';

const CloneSets = KruiseResources.CloneSet;

let cp: ControlPlane;
let client: KubeClient;
let app: ManagerApp;
beforeAll(
  async () =>
    ({ cp, client, app } = await startEnv([
      '--feature-gates=ImagePullJobGate=true,ResourcesDeletionProtection=true',
    ])),
);
afterAll(async () => {
  await app.stop();
  await cp.stop();
});

const cloneSet = (name: string, spec: Record<string, unknown> = {}, meta: Record<string, unknown> = {}) => ({
  apiVersion: 'apps.kruise.io/v1alpha1',
  kind: 'CloneSet',
  metadata: { name, namespace: 'default', ...meta },
  spec: {
    selector: { matchLabels: { app: name } },
    template: {
      metadata: { labels: { app: name } },
      spec: { containers: [{ name: 'main', image: 'busybox:v1' }] },
    },
    ...spec,
  },
});
const create = (obj: object) => client.create(CloneSets, obj as KubeObject) as Promise<CloneSet & KubeObject>;
const denial = async (obj: object) => {
  const err = await create(obj).catch((e) => e);
  expect(err?.code, 'expected a denial').toBeGreaterThanOrEqual(400);
  return err.message as string;
};
const deniedBy = (hook: string, message: string) =>
  `admission webhook "${hook}" denied the request: ${message}`;

describe('CloneSet defaulting (mcloneset.kb.io)', () => {
  it('fills upstream’s defaults and the Kubernetes pod-template defaults', async () => {
    const cs = await create(cloneSet('defaults'));
    expect(cs.spec).toMatchObject({
      replicas: 1,
      revisionHistoryLimit: 10,
      updateStrategy: { type: 'ReCreate', partition: 0, maxUnavailable: '20%', maxSurge: 0 },
      scaleStrategy: {},
    });
    expect(cs.spec!.updateStrategy!.inPlaceUpdateStrategy).toBeUndefined();
    expect(cs.spec!.template).toEqual({
      metadata: { creationTimestamp: null, labels: { app: 'defaults' } },
      spec: {
        containers: [
          {
            name: 'main',
            image: 'busybox:v1',
            resources: {},
            terminationMessagePath: '/dev/termination-log',
            terminationMessagePolicy: 'File',
            imagePullPolicy: 'Always',
          },
        ],
        restartPolicy: 'Always',
        terminationGracePeriodSeconds: 30,
        dnsPolicy: 'ClusterFirst',
        securityContext: {},
        schedulerName: 'default-scheduler',
      },
    });
  });

  it('adds an empty inPlaceUpdateStrategy for the in-place types and keeps what was set', async () => {
    const cs = await create(
      cloneSet('inplace', {
        replicas: 3,
        updateStrategy: { type: 'InPlaceIfPossible', maxUnavailable: 1, partition: '50%' },
      }),
    );
    expect(cs.spec!.replicas).toBe(3);
    expect(cs.spec!.updateStrategy).toEqual({
      type: 'InPlaceIfPossible',
      partition: '50%',
      maxUnavailable: 1,
      maxSurge: 0,
      inPlaceUpdateStrategy: {},
    });
  });

  it('defaults probes, ports, env field refs and volumes of the template', async () => {
    const cs = await create(
      cloneSet('template-defaults', {
        template: {
          metadata: { labels: { app: 'template-defaults' } },
          spec: {
            containers: [
              {
                name: 'main',
                image: 'busybox:v1',
                ports: [{ containerPort: 80 }],
                env: [{ name: 'V', valueFrom: { fieldRef: { fieldPath: "metadata.labels['app']" } } }],
                readinessProbe: { httpGet: { port: 80 } },
                resources: { requests: { cpu: '1.5' } },
              },
            ],
            initContainers: [{ name: 'init', image: 'busybox:v1' }],
            volumes: [{ name: 'scratch' }],
          },
        },
      }),
    );
    const spec = cs.spec!.template.spec!;
    const main = spec.containers[0]!;
    expect(main.ports).toEqual([{ containerPort: 80, protocol: 'TCP' }]);
    expect(main.env![0]!.valueFrom!.fieldRef).toEqual({
      apiVersion: 'v1',
      fieldPath: "metadata.labels['app']",
    });
    expect(main.readinessProbe).toEqual({
      httpGet: { path: '/', port: 80, scheme: 'HTTP' },
      timeoutSeconds: 1,
      periodSeconds: 10,
      successThreshold: 1,
      failureThreshold: 3,
    });
    expect(main.resources).toEqual({ requests: { cpu: '1500m' } });
    expect(spec.initContainers![0]!.imagePullPolicy).toBe('IfNotPresent');
    expect(spec.volumes).toEqual([{ name: 'scratch', emptyDir: {} }]);
  });
});

describe('CloneSet validation (vcloneset.kb.io)', () => {
  it.each([
    [
      'negative replicas',
      { replicas: -1 },
      'spec.replicas: Invalid value: -1: must be greater than or equal to 0',
    ],
    [
      'a selector that does not match the template',
      { selector: { matchLabels: { app: 'other' } } },
      'spec.template.metadata.labels: Invalid value: map[string]string{"app":"bad"}: `selector` does not match template `labels`',
    ],
    [
      'an empty selector',
      { selector: {} },
      'spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string(nil), MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: empty selector is invalid for cloneset',
    ],
    [
      'OnDelete',
      { updateStrategy: { type: 'OnDelete' } },
      "spec.updateStrategy.type: Invalid value: \"OnDelete\": must be 'ReCreate', InPlaceIfPossible or 'InPlaceOnly'",
    ],
    [
      'a partition string without %',
      { updateStrategy: { partition: '5' } },
      'spec.updateStrategy.partition: Invalid value: "5": failed GetScaledValueFromIntOrPercent for partition: invalid type: string is not a percentage',
    ],
    [
      'a negative partition',
      { updateStrategy: { partition: -1 } },
      'spec.updateStrategy.partition: Invalid value: -1: must be greater than or equal to 0',
    ],
    [
      'maxSurge with InPlaceOnly',
      { updateStrategy: { type: 'InPlaceOnly', maxSurge: 1 } },
      'spec.updateStrategy.maxSurge: Invalid value: "1": can not use maxSurge with strategy type InPlaceOnly',
    ],
    [
      'maxUnavailable and maxSurge both 0',
      { updateStrategy: { maxUnavailable: 0 } },
      'spec.updateStrategy.maxUnavailable: Invalid value: intstr.IntOrString{Type:0, IntVal:0, StrVal:""}: maxUnavailable and maxSurge should not both be less than 1',
    ],
    [
      'both priority kinds',
      {
        updateStrategy: {
          priorityStrategy: {
            weightPriority: [{ weight: 1, matchSelector: { matchLabels: { a: 'b' } } }],
            orderPriority: [{ orderedKey: 'k' }],
          },
        },
      },
      'spec.updateStrategy.priorityStrategy: Required value: only one of weightPriority and orderPriority can be used',
    ],
    [
      'a weight out of range',
      {
        updateStrategy: {
          priorityStrategy: { weightPriority: [{ weight: 101, matchSelector: { matchLabels: { a: 'b' } } }] },
        },
      },
      'spec.updateStrategy.priorityStrategy: Required value: weight must be valid number in the range 1-100',
    ],
    [
      'an empty weight selector',
      { updateStrategy: { priorityStrategy: { weightPriority: [{ weight: 1, matchSelector: {} }] } } },
      'spec.updateStrategy.priorityStrategy: Required value: selector can not be empty',
    ],
    [
      'a scatter term without key',
      { updateStrategy: { scatterStrategy: [{ key: '', value: 'v' }] } },
      'spec.updateStrategy.scatterStrategy: Required value: key should not be empty',
    ],
    [
      'a repeated scatter term',
      {
        updateStrategy: {
          scatterStrategy: [
            { key: 'k', value: 'v' },
            { key: 'k', value: 'v' },
          ],
        },
      },
      'spec.updateStrategy.scatterStrategy: Required value: duplicated key=k value=v',
    ],
    [
      'progressDeadlineSeconds not above minReadySeconds',
      { minReadySeconds: 10, progressDeadlineSeconds: 10 },
      'spec.progressDeadlineSeconds: Invalid value: 10: must be greater than minReadySeconds',
    ],
    [
      'duplicated podsToDelete',
      { scaleStrategy: { podsToDelete: ['a', 'a'] } },
      'spec.scaleStrategy.podsToDelete: Invalid value: []string{"a", "a"}: duplicated items [a]',
    ],
    [
      'a pod to delete that does not exist',
      { scaleStrategy: { podsToDelete: ['ghost'] } },
      'spec.scaleStrategy.podsToDelete: Invalid value: "ghost": find pod ghost failed: pods "ghost" not found',
    ],
  ])('denies %s with upstream’s message', async (_what, spec, message) => {
    const obj = cloneSet('bad', spec);
    if (_what.startsWith('a selector'))
      (obj.spec.template.metadata.labels as Record<string, string>).app = 'bad';
    expect(await denial(obj)).toBe(deniedBy('vcloneset.kb.io', message));
  });

  it('denies a restartPolicy other than Always and activeDeadlineSeconds, all errors in one message', async () => {
    const obj = cloneSet('restart');
    Object.assign(obj.spec.template.spec, { restartPolicy: 'Never', activeDeadlineSeconds: 5 });
    expect(await denial(obj)).toBe(
      deniedBy(
        'vcloneset.kb.io',
        '[spec.template.spec.restartPolicy: Unsupported value: "Never": supported values: "Always", spec.template.spec.activeDeadlineSeconds: Forbidden: activeDeadlineSeconds in cloneset is not Supported]',
      ),
    );
  });

  it('validates the pod template as Kubernetes does', async () => {
    const obj = cloneSet('template');
    obj.spec.template.spec.containers = [
      { name: 'main', image: '' },
      { name: 'main', image: 'x', volumeMounts: [{ name: 'missing', mountPath: '/m' }] } as never,
    ];
    expect(await denial(obj)).toBe(
      deniedBy(
        'vcloneset.kb.io',
        '[spec.template.spec.containers[0].image: Required value, spec.template.spec.containers[1].name: Duplicate value: "main", spec.template.spec.containers[1].volumeMounts[0].name: Not found: "missing"]',
      ),
    );
    // volumeClaimTemplates count as volumes.
    const withClaim = cloneSet('with-claim', {
      volumeClaimTemplates: [
        {
          metadata: { name: 'data' },
          spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
        },
      ],
    });
    (withClaim.spec.template.spec.containers[0] as Record<string, unknown>).volumeMounts = [
      { name: 'data', mountPath: '/data' },
    ];
    const created = await create(withClaim);
    expect(created.spec!.volumeClaimTemplates![0]).toMatchObject({
      metadata: { name: 'data' },
      status: { phase: 'Pending' },
    });
  });

  it('answers a template of the wrong shape as Go’s decoder does', async () => {
    const obj = cloneSet('shape');
    (obj.spec.template.spec as Record<string, unknown>).containers = 'main';
    expect(await denial(obj)).toBe(
      deniedBy(
        'mcloneset.kb.io',
        'json: cannot unmarshal string into Go struct field CloneSet.spec.template.spec.containers of type []v1.Container',
      ),
    );
  });

  it('forbids changing the selector, and anything but images for InPlaceOnly', async () => {
    const cs = await create(
      cloneSet('immutable', { updateStrategy: { type: 'InPlaceOnly', maxUnavailable: 1 } }),
    );
    const selectorChange = structuredClone(cs);
    selectorChange.spec!.selector = { matchLabels: { app: 'immutable', extra: 'x' } };
    selectorChange.spec!.template.metadata!.labels!.extra = 'x';
    const err = await client.update(CloneSets, selectorChange as KubeObject).catch((e) => e);
    expect(err.message).toBe(
      deniedBy(
        'vcloneset.kb.io',
        "spec: Forbidden: updates to cloneset spec for fields other than 'replicas', 'template', 'lifecycle', 'scaleStrategy', 'updateStrategy', 'minReadySeconds', 'progressDeadlineSeconds', 'volumeClaimTemplates' and 'revisionHistoryLimit' are forbidden",
      ),
    );
    const envChange = structuredClone(cs);
    envChange.spec!.template.spec!.containers[0]!.env = [{ name: 'A', value: '1' }];
    const err2 = await client.update(CloneSets, envChange as KubeObject).catch((e) => e);
    expect(err2.message).toBe(
      deniedBy(
        'vcloneset.kb.io',
        'spec: Forbidden: only allowed to update images in spec for InPlaceOnly, but found add /containers/0/env',
      ),
    );
    // a patch (no resourceVersion): the CloneSet controller writes the status meanwhile
    const updated = (await client.mergePatch(CloneSets, 'default', 'immutable', {
      spec: { replicas: 2, template: { spec: { containers: [{ name: 'main', image: 'busybox:v2' }] } } },
    })) as CloneSet;
    expect(updated.spec!.template.spec!.containers[0]!.image).toBe('busybox:v2');
  });

  it('protects a CloneSet labelled for deletion protection (gate ResourcesDeletionProtection)', async () => {
    await create(cloneSet('protected', {}, { labels: { 'policy.kruise.io/delete-protection': 'Always' } }));
    const err = await client.delete(CloneSets, 'default', 'protected').catch((e) => e);
    expect(err.code).toBe(403);
    expect(err.message).toBe(
      deniedBy(
        'vcloneset.kb.io',
        'forbidden by ResourcesProtectionDeletion for policy.kruise.io/delete-protection=Always',
      ),
    );
    await create(
      cloneSet(
        'cascading',
        { replicas: 2 },
        { labels: { 'policy.kruise.io/delete-protection': 'Cascading' } },
      ),
    );
    const err2 = await client.delete(CloneSets, 'default', 'cascading').catch((e) => e);
    expect(err2.message).toBe(
      deniedBy(
        'vcloneset.kb.io',
        'forbidden by ResourcesProtectionDeletion for policy.kruise.io/delete-protection=Cascading and replicas 2>0',
      ),
    );
    await create(cloneSet('free'));
    await client.delete(CloneSets, 'default', 'free');
  });
});
