import { type FeatureGates, parseFeatureGates, type StatefulSet } from '@kruise/api';
import { type AdmissionRequest, type AdmissionResponse, denied } from '@kruise/runtime';
import type { StorageClass } from 'kubernetes-types/storage/v1.js';
import { describe, expect, it } from 'vitest';
import { applyJsonPatch } from '../../control-plane/src/patch/json-patch.ts';
import { mutateStatefulSet } from '../src/webhooks/statefulset/mutating.ts';
import {
  type StatefulSetDeletionCheck,
  validateStatefulSet,
} from '../src/webhooks/statefulset/validating.ts';
import type { StorageClassLookup } from '../src/webhooks/statefulset/volume-claim-update.ts';
import { requestsFor } from './admission-request.ts';
import { DEFAULT_ROLLING_UPDATE } from './statefulset-defaults.ts';

/**
 * Advanced StatefulSet's admission handlers called as the API server calls them: upstream's
 * defaults on the patched object, and every denial in upstream's words (cases from upstream's
 * statefulset_validation_test.go and the branches of its validation).
 */

type Obj = Record<string, any>;

const request = requestsFor('StatefulSet', 'statefulsets');

/** A valid, defaulted StatefulSet; `spec` and `meta` replace fields of it. */
const sts = (spec: Obj = {}, meta: Obj = {}): Obj => ({
  apiVersion: 'apps.kruise.io/v1beta1',
  kind: 'StatefulSet',
  metadata: { name: 'abc', namespace: 'default', resourceVersion: '1', ...meta },
  spec: {
    replicas: 3,
    selector: { matchLabels: { a: 'b' } },
    template: {
      metadata: { labels: { a: 'b' } },
      spec: {
        containers: [{ name: 'abc', image: 'image:v1', imagePullPolicy: 'IfNotPresent' }],
        restartPolicy: 'Always',
        dnsPolicy: 'ClusterFirst',
      },
    },
    podManagementPolicy: 'OrderedReady',
    updateStrategy: {
      type: 'RollingUpdate',
      rollingUpdate: DEFAULT_ROLLING_UPDATE,
    },
    revisionHistoryLimit: 10,
    ...spec,
  },
});
const rolling = (r: Obj, spec: Obj = {}) =>
  sts({
    updateStrategy: {
      type: 'RollingUpdate',
      rollingUpdate: { ...DEFAULT_ROLLING_UPDATE, ...r },
    },
    ...spec,
  });
const withTemplate = (change: (t: Obj) => void, spec: Obj = {}) => {
  const obj = sts(spec);
  change(obj.spec.template);
  return obj;
};

const noStorageClasses: StorageClassLookup = {
  get: () => Promise.reject(new Error('none')),
  list: () => Promise.reject(new Error('none')),
};

async function validate(
  operation: AdmissionRequest['operation'],
  object: unknown,
  oldObject?: unknown,
  options: {
    gates?: FeatureGates;
    storage?: StorageClassLookup;
    deletionCheck?: StatefulSetDeletionCheck;
  } = {},
): Promise<AdmissionResponse> {
  const handler = validateStatefulSet(options.gates ?? parseFeatureGates(''), {
    storageClasses: options.storage ?? noStorageClasses,
    deletionCheck: options.deletionCheck,
  });
  return handler(request(operation, object, oldObject));
}

/** The message of a denial (the test fails if the request was allowed). */
async function denial(
  operation: AdmissionRequest['operation'],
  object: unknown,
  oldObject?: unknown,
  options = {},
) {
  const res = await validate(operation, object, oldObject, options);
  expect(res.allowed, 'expected a denial').toBe(false);
  return { code: res.status?.code, message: res.status?.message };
}

async function mutate(object: Obj, options: { gates?: string; old?: Obj; version?: string } = {}) {
  const op = options.old ? 'UPDATE' : 'CREATE';
  const res = await mutateStatefulSet(parseFeatureGates(options.gates ?? ''))(
    request(op, object, options.old, options.version),
  );
  expect(res.allowed).toBe(true);
  if (!res.patch) return object;
  return applyJsonPatch(object, JSON.parse(Buffer.from(res.patch, 'base64').toString())) as Obj;
}

const LABEL_MSG =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const NAME_PART_MSG =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const PERCENT_MSG =
  "a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')";
const FORBIDDEN_UPDATE =
  "spec: Forbidden: updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'reserveOrdinals', 'lifecycle', 'revisionHistoryLimit', 'persistentVolumeClaimRetentionPolicy', `volumeClaimTemplates`, `VolumeClaimUpdateStrategy` and 'updateStrategy' are forbidden";
const ROLLING_NIL =
  'v1beta1.RollingUpdateStatefulSetStrategy{Partition:(*int32)(0xc000a1c000), MaxUnavailable:(*intstr.IntOrString)(nil), PodUpdatePolicy:"", Paused:false, UnorderedUpdate:(*v1beta1.UnorderedUpdateStrategy)(nil), InPlaceUpdateStrategy:(*pub.InPlaceUpdateStrategy)(nil), MinReadySeconds:(*int32)(nil)}';

describe('Advanced StatefulSet defaulting (mstatefulset.kb.io)', () => {
  const bare = (spec: Obj = {}): Obj => ({
    apiVersion: 'apps.kruise.io/v1beta1',
    kind: 'StatefulSet',
    metadata: { name: 'web', namespace: 'default' },
    spec: {
      selector: { matchLabels: { app: 'web' } },
      template: {
        metadata: { labels: { app: 'web' } },
        spec: { containers: [{ name: 'main', image: 'nginx' }] },
      },
      ...spec,
    },
  });

  it('fills upstream’s defaults, the pod-template defaults and Go’s empty structs', async () => {
    const out = await mutate(bare());
    expect(out.spec).toEqual({
      replicas: 1,
      selector: { matchLabels: { app: 'web' } },
      template: {
        metadata: { creationTimestamp: null, labels: { app: 'web' } },
        spec: {
          containers: [
            {
              name: 'main',
              image: 'nginx',
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
      },
      volumeClaimUpdateStrategy: {},
      podManagementPolicy: 'OrderedReady',
      updateStrategy: {
        type: 'RollingUpdate',
        rollingUpdate: DEFAULT_ROLLING_UPDATE,
      },
      revisionHistoryLimit: 10,
      persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Retain', whenScaled: 'Retain' },
    });
    expect(out.metadata).toEqual({ name: 'web', namespace: 'default' });
  });

  it('keeps what was set and leaves OnDelete without a rollingUpdate', async () => {
    const out = await mutate(
      bare({
        replicas: 0,
        podManagementPolicy: 'Parallel',
        updateStrategy: { type: 'OnDelete' },
        persistentVolumeClaimRetentionPolicy: { whenScaled: 'Delete' },
        revisionHistoryLimit: 3,
      }),
    );
    expect(out.spec).toMatchObject({
      replicas: 0,
      podManagementPolicy: 'Parallel',
      updateStrategy: { type: 'OnDelete' },
      persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Retain', whenScaled: 'Delete' },
      revisionHistoryLimit: 3,
    });
    expect(out.spec.updateStrategy.rollingUpdate).toBeUndefined();
  });

  it('follows the gates: claim retention, claim update strategy, template defaults', async () => {
    const out = await mutate(bare({ volumeClaimTemplates: [{ metadata: { name: 'data' } }] }), {
      gates: 'StatefulSetAutoDeletePVC=false,StatefulSetAutoResizePVCGate=true,TemplateNoDefaults=true',
    });
    expect(out.spec.persistentVolumeClaimRetentionPolicy).toBeUndefined();
    expect(out.spec.volumeClaimUpdateStrategy).toEqual({ type: 'OnDelete' });
    // Go's encoding still shows, the defaults do not.
    expect(out.spec.template.spec).toEqual({ containers: [{ name: 'main', image: 'nginx', resources: {} }] });
    expect(out.spec.volumeClaimTemplates[0].status).toEqual({});
    const defaulted = await mutate(bare({ volumeClaimTemplates: [{ metadata: { name: 'data' } }] }));
    expect(defaulted.spec.volumeClaimTemplates[0].status).toEqual({ phase: 'Pending' });
  });

  it('on update, injects template defaults only when the template changed', async () => {
    const stored = bare({ replicas: 2 });
    const same = await mutate(structuredClone(stored), { old: stored });
    expect(same.spec.template.spec.containers[0].imagePullPolicy).toBeUndefined();
    expect(same.spec.revisionHistoryLimit).toBe(10);
    const changed = bare();
    changed.spec.template.spec.containers[0].image = 'nginx:2';
    expect((await mutate(changed, { old: stored })).spec.template.spec.containers[0].imagePullPolicy).toBe(
      'Always',
    );
  });

  it('answers nothing to patch for a defaulted object', async () => {
    const once = await mutate(bare());
    const res = await mutateStatefulSet(parseFeatureGates(''))(request('CREATE', once));
    expect(res).toEqual({ allowed: true });
  });

  it('defaults a v1alpha1 object as v1beta1 and writes back only what v1alpha1 has', async () => {
    const obj = { ...bare(), apiVersion: 'apps.kruise.io/v1alpha1' };
    const out = await mutate(obj, { version: 'v1alpha1', gates: 'StatefulSetAutoResizePVCGate=true' });
    expect(out.spec.updateStrategy.rollingUpdate).toEqual(DEFAULT_ROLLING_UPDATE);
    expect(out.spec.replicas).toBe(1);
    expect(out.spec.persistentVolumeClaimRetentionPolicy).toBeUndefined();
    expect(out.spec.volumeClaimUpdateStrategy).toBeUndefined();
    expect(out.apiVersion).toBe('apps.kruise.io/v1alpha1');
  });

  it('answers a template of the wrong shape as Go’s decoder does', async () => {
    const obj = bare();
    obj.spec.template.spec.containers = 'main';
    const res = await mutateStatefulSet(parseFeatureGates(''))(request('CREATE', obj));
    expect(res.status).toMatchObject({
      code: 400,
      message:
        'json: cannot unmarshal string into Go struct field StatefulSet.spec.template.spec.containers of type []v1.Container',
    });
    const spec = await mutateStatefulSet(parseFeatureGates(''))(
      request('CREATE', { spec: 'x' }, undefined, 'v1alpha1'),
    );
    expect(spec.status?.message).toBe(
      'json: cannot unmarshal string into Go struct field StatefulSet.spec of type v1alpha1.StatefulSetSpec',
    );
  });
});

describe('Advanced StatefulSet validation on create (vstatefulset.kb.io)', () => {
  it.each([
    ['OrderedReady', sts()],
    ['Parallel', sts({ podManagementPolicy: 'Parallel' })],
    ['OnDelete', sts({ updateStrategy: { type: 'OnDelete' } })],
    ['a partition and minReadySeconds', rolling({ partition: 2, minReadySeconds: 10 })],
    [
      'Parallel with maxUnavailable 120%',
      rolling({ maxUnavailable: '120%' }, { podManagementPolicy: 'Parallel' }),
    ],
    [
      'in-place with the InPlaceUpdateReady gate',
      withTemplate(
        (t) => {
          t.spec.readinessGates = [{ conditionType: 'InPlaceUpdateReady' }];
        },
        {
          updateStrategy: {
            type: 'RollingUpdate',
            rollingUpdate: { ...DEFAULT_ROLLING_UPDATE, podUpdatePolicy: 'InPlaceOnly' },
          },
        },
      ),
    ],
    ['reserved ordinals and ranges', sts({ reserveOrdinals: [1, '3-5', '7-7'] })],
    [
      'an invalid pod spec (left to the API server, as Kubernetes does)',
      withTemplate((t) => (t.spec.containers = [])),
    ],
  ])('allows %s', async (_what, obj) => {
    expect(await validate('CREATE', obj)).toEqual({ allowed: true });
  });

  it.each([
    [
      'an empty name',
      sts({}, { name: '' }),
      'metadata.name: Required value: name or generateName is required',
    ],
    ['no namespace', sts({}, { namespace: '' }), 'metadata.namespace: Required value'],
    [
      'a name that is no DNS label',
      sts({}, { name: 'a.b' }),
      `metadata.name: Invalid value: "a.b": ${LABEL_MSG}`,
    ],
    [
      'an invalid label',
      sts({}, { labels: { 'NoUppercaseOrSpecialCharsLike=Equals': 'bar' } }),
      `metadata.labels: Invalid value: "NoUppercaseOrSpecialCharsLike=Equals": ${NAME_PART_MSG}`,
    ],
    [
      'an invalid annotation',
      sts({}, { annotations: { 'NoUppercaseOrSpecialCharsLike=Equals': 'bar' } }),
      `metadata.annotations: Invalid value: "NoUppercaseOrSpecialCharsLike=Equals": ${NAME_PART_MSG}`,
    ],
    [
      'no selector',
      sts({ selector: undefined }),
      '[spec.selector: Required value, spec.template.metadata.labels: Invalid value: map[string]string{"a":"b"}: `selector` does not match template `labels`]',
    ],
    [
      'an empty selector',
      sts({ selector: {} }),
      'spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string(nil), MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: empty selector is invalid for statefulset',
    ],
    [
      'a selector that does not match the template',
      sts({ selector: { matchLabels: { foo: 'bar' } } }),
      'spec.template.metadata.labels: Invalid value: map[string]string{"a":"b"}: `selector` does not match template `labels`',
    ],
    [
      'a selector with an unknown operator',
      sts({ selector: { matchExpressions: [{ key: 'a', operator: 'Maybe' }] } }),
      '[spec.selector.matchExpressions[0].operator: Invalid value: "Maybe": not a valid selector operator, spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string(nil), MatchExpressions:[]v1.LabelSelectorRequirement{v1.LabelSelectorRequirement{Key:"a", Operator:"Maybe", Values:[]string(nil)}}}]',
    ],
    [
      'negative replicas',
      sts({ replicas: -1 }),
      'spec.replicas: Invalid value: -1: must be greater than or equal to 0',
    ],
    [
      'an invalid template label',
      withTemplate((t) => (t.metadata.labels['bad key'] = 'x')),
      `spec.template.labels: Invalid value: "bad key": ${NAME_PART_MSG}`,
    ],
    [
      'a mirror-pod annotation without a node',
      withTemplate((t) => (t.metadata.annotations = { 'kubernetes.io/config.mirror': 'x' })),
      'spec.template.annotations[kubernetes.io/config.mirror]: Invalid value: "x": must set spec.nodeName if mirror pod annotation is set',
    ],
    [
      'restartPolicy OnFailure',
      withTemplate((t) => (t.spec.restartPolicy = 'OnFailure')),
      'spec.template.spec.restartPolicy: Unsupported value: "OnFailure": supported values: "Always"',
    ],
    [
      'restartPolicy Never and activeDeadlineSeconds',
      withTemplate((t) => Object.assign(t.spec, { restartPolicy: 'Never', activeDeadlineSeconds: 60 })),
      '[spec.template.spec.restartPolicy: Unsupported value: "Never": supported values: "Always", spec.template.spec.activeDeadlineSeconds: Forbidden: activeDeadlineSeconds in StatefulSet is not Supported]',
    ],
    ['no podManagementPolicy', sts({ podManagementPolicy: '' }), 'spec.podManagementPolicy: Required value'],
    [
      'an unknown podManagementPolicy',
      sts({ podManagementPolicy: 'foo' }),
      "spec.podManagementPolicy: Invalid value: \"foo\": must be 'OrderedReady' or 'Parallel'",
    ],
    ['no update strategy type', sts({ updateStrategy: { type: '' } }), 'spec.updateStrategy: Required value'],
    [
      'an unknown update strategy type',
      sts({ updateStrategy: { type: 'foo' } }),
      "spec.updateStrategy: Invalid value: v1beta1.StatefulSetUpdateStrategy{Type:\"foo\", RollingUpdate:(*v1beta1.RollingUpdateStatefulSetStrategy)(nil)}: must be 'RollingUpdate' or 'OnDelete'",
    ],
    [
      'OnDelete with a rollingUpdate',
      sts({ updateStrategy: { type: 'OnDelete', rollingUpdate: { partition: 1 } } }),
      `spec.updateStrategy.rollingUpdate: Invalid value: ${ROLLING_NIL}: only allowed for updateStrategy 'RollingUpdate'`,
    ],
    [
      'an unknown podUpdatePolicy',
      rolling({ podUpdatePolicy: 'Unknown' }),
      "spec.updateStrategy.rollingUpdate.podUpdatePolicy: Invalid value: \"Unknown\": must be 'ReCreate', InPlaceIfPossible or 'InPlaceOnly'",
    ],
    [
      'InPlaceIfPossible without the InPlaceUpdateReady gate',
      rolling({ podUpdatePolicy: 'InPlaceIfPossible' }),
      'spec.template.spec.readinessGates: Invalid value: []v1.PodReadinessGate(nil): must contains InPlaceUpdateReady when podUpdatePolicy is InPlaceIfPossible',
    ],
    [
      'InPlaceOnly with another readiness gate',
      withTemplate((t) => (t.spec.readinessGates = [{ conditionType: 'Other' }]), {
        updateStrategy: {
          type: 'RollingUpdate',
          rollingUpdate: { ...DEFAULT_ROLLING_UPDATE, podUpdatePolicy: 'InPlaceOnly' },
        },
      }),
      'spec.template.spec.readinessGates: Invalid value: []v1.PodReadinessGate{v1.PodReadinessGate{ConditionType:"Other"}}: must contains InPlaceUpdateReady when podUpdatePolicy is InPlaceOnly',
    ],
    [
      'a negative partition',
      rolling({ partition: -1 }),
      'spec.updateStrategy.rollingUpdate.partition: Invalid value: -1: must be greater than or equal to 0',
    ],
    [
      'a negative minReadySeconds',
      rolling({ minReadySeconds: -1 }),
      'spec.updateStrategy.rollingUpdate.minReadySeconds: Invalid value: -1: must be greater than or equal to 0',
    ],
    [
      'minReadySeconds above 300',
      rolling({ minReadySeconds: 301 }),
      'spec.updateStrategy.rollingUpdate.minReadySeconds: Invalid value: 301: must be no more than 300 seconds',
    ],
    [
      'no maxUnavailable',
      rolling({ maxUnavailable: undefined }),
      'spec.updateStrategy.rollingUpdate.maxUnavailable: Required value',
    ],
    [
      'maxUnavailable above 1 with OrderedReady',
      rolling({ maxUnavailable: 2 }),
      'spec.updateStrategy.rollingUpdate.maxUnavailable: Invalid value: intstr.IntOrString{Type:0, IntVal:2, StrVal:""}: can only work with Parallel PodManagementPolicyType',
    ],
    [
      'maxUnavailable 0',
      rolling({ maxUnavailable: 0 }, { podManagementPolicy: 'Parallel' }),
      'spec.updateStrategy.rollingUpdate.maxUnavailable: Invalid value: 0: should not be less than 1',
    ],
    [
      'maxUnavailable 0%',
      rolling({ maxUnavailable: '0%' }, { podManagementPolicy: 'Parallel' }),
      'spec.updateStrategy.rollingUpdate.maxUnavailable: Invalid value: 0: should not be less than 1',
    ],
    [
      'a maxUnavailable string without %',
      rolling({ maxUnavailable: '50' }, { podManagementPolicy: 'Parallel' }),
      `spec.updateStrategy.rollingUpdate.maxUnavailable: Invalid value: intstr.IntOrString{Type:1, IntVal:0, StrVal:"50"}: ${PERCENT_MSG}`,
    ],
    [
      'a maxUnavailable that is no number',
      rolling({ maxUnavailable: 'x%' }, { podManagementPolicy: 'Parallel' }),
      `[spec.updateStrategy.rollingUpdate.maxUnavailable: Invalid value: intstr.IntOrString{Type:1, IntVal:0, StrVal:"x%"}: ${PERCENT_MSG}, spec.updateStrategy.rollingUpdate.maxUnavailable: Invalid value: 0: getValueFromIntOrPercent error: invalid value for IntOrString: invalid value "x%": strconv.Atoi: parsing "x": invalid syntax]`,
    ],
    [
      'a negative maxUnavailable',
      rolling({ maxUnavailable: -1 }, { podManagementPolicy: 'Parallel' }),
      '[spec.updateStrategy.rollingUpdate.maxUnavailable: Invalid value: -1: must be greater than or equal to 0, spec.updateStrategy.rollingUpdate.maxUnavailable: Invalid value: -1: should not be less than 1]',
    ],
    [
      'unorderedUpdate with OrderedReady',
      rolling({ unorderedUpdate: {} }),
      'spec.updateStrategy.rollingUpdate.unorderedUpdate: Required value: unorderedUpdate can only work with Parallel PodManagementPolicyType',
    ],
    [
      'both kinds of priority',
      rolling(
        {
          unorderedUpdate: {
            priorityStrategy: {
              weightPriority: [{ weight: 1, matchSelector: { matchLabels: { a: 'b' } } }],
              orderPriority: [{ orderedKey: 'k' }],
            },
          },
        },
        { podManagementPolicy: 'Parallel' },
      ),
      'spec.updateStrategy.rollingUpdate.unorderedUpdate.priorityStrategy: Required value: only one of weightPriority and orderPriority can be used',
    ],
    [
      'a scale maxUnavailable with OrderedReady',
      sts({ scaleStrategy: { maxUnavailable: '50%' } }),
      'spec.scaleStrategy.maxUnavailable: Invalid value: intstr.IntOrString{Type:1, IntVal:0, StrVal:"50%"}: can only work with Parallel PodManagementPolicyType',
    ],
    [
      'a reserved range that is no range',
      sts({ reserveOrdinals: [1, 'a-b'] }),
      '[spec: Invalid value: []intstr.IntOrString{intstr.IntOrString{Type:0, IntVal:1, StrVal:""}, intstr.IntOrString{Type:1, IntVal:0, StrVal:"a-b"}}: 1 th reserve ordinal is not a valid range: a-b, spec: Invalid value: []intstr.IntOrString{intstr.IntOrString{Type:0, IntVal:1, StrVal:""}, intstr.IntOrString{Type:1, IntVal:0, StrVal:"a-b"}}: 1 th reserve ordinal is invalid: a-b, err = strconv.Atoi: parsing "a": invalid syntax]',
    ],
    [
      'a reversed reserved range',
      sts({ reserveOrdinals: ['5-3'] }),
      'spec: Invalid value: []intstr.IntOrString{intstr.IntOrString{Type:1, IntVal:0, StrVal:"5-3"}}: 0 th reserve ordinal is invalid: 5-3, err = invalid range 5-3',
    ],
    [
      'a single number written as a string',
      sts({ reserveOrdinals: ['4'] }),
      '[spec: Invalid value: []intstr.IntOrString{intstr.IntOrString{Type:1, IntVal:0, StrVal:"4"}}: 0 th reserve ordinal is not a valid range: 4, spec: Invalid value: []intstr.IntOrString{intstr.IntOrString{Type:1, IntVal:0, StrVal:"4"}}: 0 th reserve ordinal is invalid: 4, err = invalid range 4]',
    ],
    [
      'a negative reserved ordinal',
      sts({ reserveOrdinals: [-1] }),
      'spec: Invalid value: []intstr.IntOrString{intstr.IntOrString{Type:0, IntVal:-1, StrVal:""}}: 0 th reserve ordinal is negative: -1',
    ],
    [
      'an unknown retention policy',
      sts({ persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Sometimes', whenScaled: 'Delete' } }),
      'spec.persistentVolumeClaimRetentionPolicy.whenDeleted: Unsupported value: "Sometimes": supported values: "Retain", "Delete"',
    ],
  ])('denies %s with upstream’s message', async (_what, obj, message) => {
    expect(await denial('CREATE', obj)).toEqual({ code: 422, message });
  });

  it('validates a v1alpha1 object as v1beta1, ignoring fields v1alpha1 does not have', async () => {
    const obj: Obj = { ...sts({ reserveOrdinals: [-1] }), apiVersion: 'apps.kruise.io/v1alpha1' };
    const handler = validateStatefulSet(parseFeatureGates(''), { storageClasses: noStorageClasses });
    expect(await handler(request('CREATE', obj, undefined, 'v1alpha1'))).toEqual({ allowed: true });
    obj.spec.podManagementPolicy = 'foo';
    expect((await handler(request('CREATE', obj, undefined, 'v1alpha1'))).status?.message).toBe(
      "spec.podManagementPolicy: Invalid value: \"foo\": must be 'OrderedReady' or 'Parallel'",
    );
  });
});

describe('Advanced StatefulSet validation on update', () => {
  const claim = (size: string, name = 'foo', storageClassName: string | null = 'foo/bar') => ({
    metadata: { name },
    spec: {
      ...(storageClassName === null ? {} : { storageClassName }),
      accessModes: ['ReadWriteOnce'],
      resources: { requests: { storage: size } },
    },
  });

  it('allows changes to the mutable fields', async () => {
    const old = sts({
      podManagementPolicy: 'Parallel',
      replicas: 5,
      revisionHistoryLimit: 5,
      reserveOrdinals: [1],
      lifecycle: { preDelete: { finalizersHandler: ['foo/bar'] } },
      volumeClaimTemplates: [claim('30Gi')],
      scaleStrategy: { maxUnavailable: 1 },
      persistentVolumeClaimRetentionPolicy: { whenScaled: 'Retain', whenDeleted: 'Retain' },
    });
    const next = structuredClone(old);
    Object.assign(next.spec, {
      replicas: 10,
      revisionHistoryLimit: 10,
      reserveOrdinals: [2],
      lifecycle: { preDelete: { finalizersHandler: ['foo/hello'] } },
      volumeClaimTemplates: [claim('60Gi')],
      scaleStrategy: { maxUnavailable: 2 },
      persistentVolumeClaimRetentionPolicy: { whenScaled: 'Delete', whenDeleted: 'Retain' },
      ordinals: { start: 2 },
    });
    next.spec.template.spec.containers[0].image = 'image:v2';
    next.spec.updateStrategy.rollingUpdate.partition = 10;
    expect(await validate('UPDATE', next, old)).toEqual({ allowed: true });
  });

  it.each([
    ['the selector', (s: Obj) => (s.spec.selector = { matchLabels: { a: 'b', c: 'd' } })],
    ['serviceName', (s: Obj) => (s.spec.serviceName = 'bar')],
    ['podManagementPolicy', (s: Obj) => (s.spec.podManagementPolicy = 'Parallel')],
  ])('forbids changing %s', async (_what, change) => {
    const old = sts();
    const next = structuredClone(old);
    change(next);
    if (_what === 'the selector') next.spec.template.metadata.labels.c = 'd';
    expect(await denial('UPDATE', next, old)).toEqual({ code: 422, message: FORBIDDEN_UPDATE });
  });

  it('keeps the metadata rules of an update', async () => {
    const old = sts();
    const next = sts({}, { resourceVersion: '' });
    expect((await denial('UPDATE', next, old)).message).toBe(
      'metadata.resourceVersion: Invalid value: "": must be specified for an update',
    );
  });

  describe('InPlaceOnly', () => {
    const inPlaceOnly = () =>
      withTemplate((t) => (t.spec.readinessGates = [{ conditionType: 'InPlaceUpdateReady' }]), {
        updateStrategy: {
          type: 'RollingUpdate',
          rollingUpdate: { ...DEFAULT_ROLLING_UPDATE, podUpdatePolicy: 'InPlaceOnly' },
        },
      });

    it('allows an image change (and, as upstream’s unanchored pattern does, an imagePullPolicy change)', async () => {
      const old = inPlaceOnly();
      const next = structuredClone(old);
      next.spec.template.spec.containers[0].image = 'image:v2';
      next.spec.template.spec.containers[0].imagePullPolicy = 'Always';
      next.spec.template.metadata.labels.extra = 'x';
      expect(await validate('UPDATE', next, old)).toEqual({ allowed: true });
    });

    it('refuses anything else in the pod spec with upstream’s message', async () => {
      const old = inPlaceOnly();
      const next = structuredClone(old);
      next.spec.template.spec.containers[0].env = [{ name: 'A', value: '1' }];
      expect(await denial('UPDATE', next, old)).toEqual({
        code: 422,
        message:
          'invalid template modified with InPlaceOnly strategy: add /containers/0/env, currently only image update is allowed for InPlaceOnly',
      });
    });
  });

  describe('volumeClaimTemplates (gate StatefulSetAutoResizePVCGate)', () => {
    const gates = parseFeatureGates('StatefulSetAutoResizePVCGate=true');
    const sc = (
      name: string,
      allowVolumeExpansion: boolean,
      isDefault = false,
      created = '2026-01-01T00:00:00Z',
    ): StorageClass => ({
      metadata: {
        name,
        creationTimestamp: created,
        ...(isDefault ? { annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' } } : {}),
      },
      provisioner: 'p',
      allowVolumeExpansion,
    });
    const classes = [sc('allowExpand', true), sc('disallowExpand', false)];
    const storage = (list: StorageClass[] = classes) => ({
      get: async (name: string) => {
        const found = list.find((c) => c.metadata?.name === name);
        if (!found) throw new Error(`storageclasses.storage.k8s.io "${name}" not found`);
        return found;
      },
      list: async () => list,
    });
    const pair = (oldClaims: Obj[], newClaims: Obj[], oldType = 'OnPodRollingUpdate', newType = oldType) => [
      sts({ volumeClaimTemplates: newClaims, volumeClaimUpdateStrategy: { type: newType } }),
      sts({ volumeClaimTemplates: oldClaims, volumeClaimUpdateStrategy: { type: oldType } }),
    ];

    it.each([
      [
        'no strategy, another class',
        pair([claim('1Gi', 'pvc-1', 'disallowExpand')], [claim('1Gi', 'pvc-1', 'allowExpand')], ''),
      ],
      [
        'OnDelete, a larger size',
        pair(
          [claim('2Gi', 'pvc-1', 'disallowExpand')],
          [claim('3Gi', 'pvc-1', 'disallowExpand')],
          'OnDelete',
        ),
      ],
      [
        'a larger size where the class expands',
        pair([claim('2Gi', 'pvc-1', 'allowExpand')], [claim('3Gi', 'pvc-1', 'allowExpand')]),
      ],
      [
        'a smaller size where the class expands',
        pair([claim('3Gi', 'pvc-1', 'allowExpand')], [claim('2Gi', 'pvc-1', 'allowExpand')]),
      ],
      ['a resize with no default class', pair([claim('2Gi', 'pvc-1', null)], [claim('3Gi', 'pvc-1', null)])],
      [
        'a resize when only the new object asks for OnPodRollingUpdate (the old one decides)',
        pair(
          [claim('2Gi', 'pvc-1', 'disallowExpand')],
          [claim('3Gi', 'pvc-1', 'disallowExpand')],
          'OnDelete',
          'OnPodRollingUpdate',
        ),
      ],
    ])('allows %s', async (_what, [next, old]) => {
      expect(await validate('UPDATE', next, old, { gates, storage: storage() })).toEqual({ allowed: true });
    });

    it.each([
      [
        'another class',
        pair([claim('1Gi', 'pvc-1', 'disallowExpand')], [claim('1Gi', 'pvc-1', 'allowExpand')]),
        'spec.volumeClaimTemplates[pvc-1]: Invalid value: v1.PersistentVolumeClaim{ObjectMeta:v1.ObjectMeta{Name:"pvc-1", …}, …}: volumeClaimTemplate can not be modified when OnRollingUpdate',
      ],
      [
        'a larger size where the class does not expand',
        pair([claim('2Gi', 'pvc-1', 'disallowExpand')], [claim('3Gi', 'pvc-1', 'disallowExpand')]),
        'spec.volumeClaimTemplates[pvc-1].spec.resources.requests.storage: Forbidden: storage class disallowExpand does not support volume expansion',
      ],
      [
        'a smaller size where the class does not expand',
        pair([claim('3Gi', 'pvc-1', 'disallowExpand')], [claim('2Gi', 'pvc-1', 'disallowExpand')]),
        'spec.volumeClaimTemplates[pvc-1].spec.resources.requests.storage: Forbidden: storage class disallowExpand does not support volume expansion',
      ],
      [
        'an unknown class',
        pair([claim('2Gi', 'pvc-1', 'gone')], [claim('3Gi', 'pvc-1', 'gone')]),
        'spec.volumeClaimTemplates[pvc-1].spec.storageClassName: Invalid value: "gone": can not get sc',
      ],
      [
        'an added claim',
        pair([claim('1Gi', 'a')], [claim('1Gi', 'a'), claim('1Gi', 'b')]),
        'spec.volumeClaimTemplates: Invalid value: []v1.PersistentVolumeClaim{v1.PersistentVolumeClaim{ObjectMeta:v1.ObjectMeta{Name:"a", …}, …}, v1.PersistentVolumeClaim{ObjectMeta:v1.ObjectMeta{Name:"b", …}, …}}: volumeClaimTemplate can not be added or deleted when OnRollingUpdate',
      ],
      [
        'a renamed claim',
        pair([claim('1Gi', 'a')], [claim('1Gi', 'b')]),
        'spec.volumeClaimTemplates[b].name: Forbidden: volumeClaimTemplate name can not be modified',
      ],
    ])('denies %s', async (_what, [next, old], message) => {
      expect(await denial('UPDATE', next, old, { gates, storage: storage() })).toEqual({
        code: 422,
        message,
      });
    });

    it('checks the newest default class for a claim that names none', async () => {
      const [next, old] = pair([claim('2Gi', 'pvc-1', null)], [claim('3Gi', 'pvc-1', null)]);
      const defaults = [
        sc('old-default', true, true, '2026-01-01T00:00:00Z'),
        sc('new-default', false, true, '2026-02-01T00:00:00Z'),
      ];
      expect((await denial('UPDATE', next, old, { gates, storage: storage(defaults) })).message).toBe(
        'spec.volumeClaimTemplates[pvc-1].spec.resources.requests.storage: Forbidden: storage class new-default does not support volume expansion',
      );
      expect((await denial('UPDATE', next, old, { gates })).message).toBe(
        'spec.volumeClaimTemplates[pvc-1].spec.storageClassName: Invalid value: "nil": can not list storage class',
      );
    });

    it('is not checked with the gate off', async () => {
      const [next, old] = pair([claim('1Gi', 'a')], [claim('1Gi', 'b')]);
      expect(await validate('UPDATE', next, old)).toEqual({ allowed: true });
    });
  });
});

describe('Advanced StatefulSet deletion', () => {
  it('allows a deletion (deletion protection comes with its own issue)', async () => {
    expect(
      await validate(
        'DELETE',
        undefined,
        sts({}, { labels: { 'policy.kruise.io/delete-protection': 'Cascading' } }),
      ),
    ).toEqual({
      allowed: true,
    });
    expect(await validate('DELETE', undefined, undefined)).toEqual({ allowed: true });
  });

  it('hands the stored object to the deletion check, whose denial is the answer', async () => {
    const seen: StatefulSet[] = [];
    const deletionCheck: StatefulSetDeletionCheck = (old) => {
      seen.push(old);
      return denied(403, 'kept');
    };
    expect(await denial('DELETE', undefined, sts({ replicas: 2 }), { deletionCheck })).toEqual({
      code: 403,
      message: 'kept',
    });
    expect(seen.map((s) => s.spec?.replicas)).toEqual([2]);
  });
});
