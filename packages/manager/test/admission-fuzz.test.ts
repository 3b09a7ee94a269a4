import { parseFeatureGates } from '@kruise/api';
import type { AdmissionHandler, AdmissionResponse } from '@kruise/runtime';
import fc from 'fast-check';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { describe, expect, it } from 'vitest';
import { webhookRoutes } from '../src/webhooks/paths.ts';
import { admissionRequest } from './admission-request.ts';

/**
 * Property tests of every admission handler: thousands of malformed objects (wrong types, huge and
 * unicode strings, negative and overflowing numbers, missing fields, both selectors, duplicates).
 * Each must be answered allowed (a valid patch, if any) or denied with a non-empty message and a
 * 4xx code — never an exception, never a 500.
 */
const gates = parseFeatureGates(
  'ImagePullJobGate=true,StatefulSetAutoResizePVCGate=true,ResourcesDeletionProtection=true,DeletionProtectionForCRDCascadingGate=true',
);
const pod: Pod = {
  metadata: { name: 'p', namespace: 'default', uid: 'u1' },
  spec: { nodeName: 'n1', containers: [{ name: 'app' }], terminationGracePeriodSeconds: 30 },
  status: {
    phase: 'Running',
    containerStatuses: [
      {
        name: 'app',
        image: 'app:1',
        imageID: '',
        ready: true,
        containerID: 'containerd://x',
        restartCount: 0,
      },
    ],
  },
};
const routes = webhookRoutes(gates, {
  crr: {
    pod: async (_ns, name) => (name === 'p' ? pod : undefined),
    node: async (name) => {
      if (name !== 'n1') throw new Error(`nodes "${name}" not found`);
      return { metadata: { name } };
    },
  },
  storageClasses: {
    get: async (name) => {
      if (name !== 'sc') throw new Error(`storageclasses.storage.k8s.io "${name}" not found`);
      return { metadata: { name }, provisioner: 'p', allowVolumeExpansion: false };
    },
    list: async () => [],
  },
  sidecarSetAdmission: {
    sidecarSets: async () => [
      {
        metadata: { name: 'other' },
        spec: {
          selector: { matchLabels: { app: 'a' } },
          containers: [{ name: 'app', image: 'a:1' }],
          volumes: [{ name: 'data', emptyDir: {} }],
          patchPodMetadata: [{ annotations: { app: '1' }, patchPolicy: 'Overwrite' }],
        },
      },
    ],
    revision: async (name) => {
      if (name !== 'r1') throw new Error(`controllerrevisions.apps "${name}" not found`);
      return { metadata: { name } };
    },
    revisions: async () => [],
    configuration: async () => ({
      data: { SidecarSet_PatchPodMetadata_WhiteList: '{"rules":[{"allowedAnnotationKeyExprs":["^a"]}]}' },
    }),
  },
  pubAdmission: {
    budgets: async () => [
      { metadata: { name: 'other' }, spec: { selector: { matchLabels: { app: 'a' } }, maxUnavailable: 1 } },
      {
        metadata: { name: 'ref' },
        spec: { targetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' } },
      },
    ],
  },
});

const weird = fc.oneof(
  fc.string(),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.constantFrom(
    '',
    ' ',
    'a b',
    'UPPER:Tag',
    'x'.repeat(5000),
    '-1',
    '10%',
    'nginx@sha256:zz',
    '\u0000',
    '../../etc',
  ),
  fc.integer(),
  fc.constantFrom(-1, 0, 2 ** 31, 2 ** 53, -(2 ** 63), Number.MAX_VALUE, 1.5),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.string(), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 5 }), fc.string({ maxLength: 5 }), { maxKeys: 3 }),
);
const maybe = <T>(a: fc.Arbitrary<T>) => fc.option(fc.oneof(a, weird), { nil: undefined });
const selector = fc.record(
  {
    names: maybe(fc.array(fc.constantFrom('n1', 'n2', 'n1', ''), { maxLength: 4 })),
    matchLabels: maybe(
      fc.dictionary(fc.string({ maxLength: 70 }), fc.string({ maxLength: 70 }), { maxKeys: 3 }),
    ),
    matchExpressions: maybe(
      fc.array(
        fc.record({
          key: maybe(fc.string()),
          operator: maybe(fc.constantFrom('In', 'NotIn', 'Exists', 'Maybe')),
          values: maybe(fc.array(fc.string())),
        }),
        { maxLength: 2 },
      ),
    ),
  },
  { requiredKeys: [] },
);
const image = fc.oneof(
  fc.constantFrom('nginx', 'nginx:1.25', 'reg.io:5000/a/b:c', 'busybox@sha256:' + 'a'.repeat(64)),
  weird,
);
const completionPolicy = fc.record(
  {
    type: maybe(fc.constantFrom('Always', 'Never', 'Sometimes')),
    activeDeadlineSeconds: maybe(fc.integer({ min: -10, max: 100_000 })),
    ttlSecondsAfterFinished: maybe(fc.integer({ min: -10, max: 100_000 })),
  },
  { requiredKeys: [] },
);
const jobSpec = fc.record(
  {
    image: maybe(image),
    images: maybe(fc.array(image, { maxLength: 300 })),
    selector: maybe(selector),
    podSelector: maybe(selector),
    parallelism: maybe(fc.oneof(fc.integer({ min: -5, max: 50 }), fc.constantFrom('3', '50%', 'x'))),
    pullPolicy: maybe(
      fc.record(
        { timeoutSeconds: maybe(fc.integer()), backoffLimit: maybe(fc.integer()) },
        { requiredKeys: [] },
      ),
    ),
    pullSecrets: maybe(fc.array(fc.string(), { maxLength: 3 })),
    completionPolicy: maybe(completionPolicy),
    imagePullPolicy: maybe(fc.constantFrom('Always', 'IfNotPresent')),
  },
  { requiredKeys: [] },
);
const tag = fc.record(
  {
    tag: maybe(fc.constantFrom('v1', 'v1', '', 'latest')),
    createdAt: maybe(fc.constantFrom('2026-01-01T00:00:00Z')),
    version: maybe(fc.integer({ min: -3, max: 3 })),
    pullPolicy: maybe(
      fc.record(
        { ttlSecondsAfterFinished: maybe(fc.integer()), timeoutSeconds: maybe(fc.integer()) },
        { requiredKeys: [] },
      ),
    ),
  },
  { requiredKeys: [] },
);
const nodeImageSpec = fc.record(
  {
    images: maybe(
      fc.dictionary(
        fc.oneof(fc.constant(''), fc.string({ maxLength: 20 })),
        fc.record({ tags: maybe(fc.array(tag, { maxLength: 4 })) }, { requiredKeys: [] }),
        { maxKeys: 4 },
      ),
    ),
  },
  { requiredKeys: [] },
);
const crrSpec = fc.record(
  {
    podName: maybe(fc.constantFrom('p', 'missing', '')),
    containers: maybe(
      fc.array(
        fc.record(
          {
            name: maybe(fc.constantFrom('app', 'app', 'db')),
            ports: maybe(fc.array(fc.record({ containerPort: fc.integer() }))),
            statusContext: maybe(fc.constant({})),
          },
          { requiredKeys: [] },
        ),
        { maxLength: 3 },
      ),
    ),
    strategy: maybe(
      fc.record(
        {
          failurePolicy: maybe(fc.constantFrom('Fail', 'Ignore', 'Sometimes', '')),
          terminationGracePeriodSeconds: maybe(fc.integer({ min: -5, max: 100 })),
          unreadyGracePeriodSeconds: maybe(fc.integer({ min: -5, max: 100 })),
          minStartedSeconds: maybe(fc.integer()),
        },
        { requiredKeys: [] },
      ),
    ),
    activeDeadlineSeconds: maybe(fc.integer({ min: -5, max: 100 })),
  },
  { requiredKeys: [] },
);
const intOrPercent = fc.oneof(
  fc.integer({ min: -3, max: 12 }),
  fc.constantFrom('20%', '12.5%', '100%', '5', 'x%'),
);
const container = fc.record(
  {
    name: maybe(fc.constantFrom('app', 'app', 'Side', '')),
    image: maybe(image),
    imagePullPolicy: maybe(fc.constantFrom('Always', 'Sometimes')),
    env: maybe(
      fc.array(
        fc.record(
          {
            name: maybe(fc.constantFrom('A', '1BAD', 'KRUISE_CONTAINER_PRIORITY')),
            value: maybe(fc.constantFrom('1', '-2', 'x', '')),
            valueFrom: maybe(fc.constant({ fieldRef: { fieldPath: "metadata.labels['v']" } })),
          },
          { requiredKeys: [] },
        ),
        { maxLength: 3 },
      ),
    ),
    ports: maybe(
      fc.array(fc.record({ containerPort: fc.integer({ min: -1, max: 70000 }) }), { maxLength: 2 }),
    ),
    resources: maybe(
      fc.record(
        {
          requests: maybe(fc.dictionary(fc.constantFrom('cpu', 'memory'), fc.constantFrom('1', '2Gi', 'x'))),
        },
        { requiredKeys: [] },
      ),
    ),
    volumeMounts: maybe(
      fc.array(
        fc.record(
          { name: maybe(fc.constantFrom('data', 'nope')), mountPath: maybe(fc.constantFrom('/d', '')) },
          { requiredKeys: [] },
        ),
        { maxLength: 2 },
      ),
    ),
  },
  { requiredKeys: [] },
);
const podSpec = fc.record(
  {
    containers: maybe(fc.array(container, { maxLength: 3 })),
    initContainers: maybe(fc.array(container, { maxLength: 1 })),
    volumes: maybe(
      fc.array(fc.record({ name: maybe(fc.constantFrom('data', 'data', 'Bad')) }, { requiredKeys: [] }), {
        maxLength: 2,
      }),
    ),
    restartPolicy: maybe(fc.constantFrom('Always', 'Never', 'Sometimes')),
    activeDeadlineSeconds: maybe(fc.integer()),
    hostNetwork: maybe(fc.boolean()),
  },
  { requiredKeys: [] },
);
const labels = fc.dictionary(fc.constantFrom('app', 'v', 'bad key'), fc.constantFrom('a', 'b', ''), {
  maxKeys: 2,
});
const priorityStrategy = fc.record(
  {
    weightPriority: maybe(
      fc.array(fc.record({ weight: fc.integer({ min: -1, max: 101 }), matchSelector: selector }), {
        maxLength: 2,
      }),
    ),
    orderPriority: maybe(fc.array(fc.record({ orderedKey: fc.constantFrom('k', '') }), { maxLength: 2 })),
  },
  { requiredKeys: [] },
);
const podTemplate = fc.record(
  {
    metadata: maybe(
      fc.record(
        {
          labels: maybe(labels),
          annotations: maybe(
            fc.constantFrom(
              { 'kubernetes.io/config.mirror': 'x' },
              { 'container.apparmor.security.beta.kubernetes.io/app': 'bad' },
              { 'seccomp.security.alpha.kubernetes.io/pod': 'localhost/../x' },
            ),
          ),
        },
        { requiredKeys: [] },
      ),
    ),
    spec: maybe(podSpec),
  },
  { requiredKeys: [] },
);
const broadcastJobSpec = fc.record(
  {
    parallelism: maybe(intOrPercent),
    template: maybe(podTemplate),
    completionPolicy: maybe(completionPolicy),
    paused: maybe(fc.boolean()),
    failurePolicy: maybe(
      fc.record(
        {
          type: maybe(fc.constantFrom('FailFast', 'Continue', 'Pause', 'Other')),
          restartLimit: maybe(fc.integer({ min: -1, max: 5 })),
        },
        { requiredKeys: [] },
      ),
    ),
  },
  { requiredKeys: [] },
);
const advancedCronJobSpec = fc.record(
  {
    schedule: maybe(
      fc.constantFrom(
        '*/5 * * * *',
        '@every 10s',
        'TZ=UTC',
        'TZ=Mars/X 0 * * *',
        '61 * * * *',
        '',
        'x y',
        '@weird',
      ),
    ),
    timeZone: maybe(fc.constantFrom('Asia/Tokyo', 'Local', '', 'Nowhere/Land')),
    concurrencyPolicy: maybe(fc.constantFrom('Allow', 'Forbid', 'Replace', '')),
    paused: maybe(fc.boolean()),
    startingDeadlineSeconds: maybe(fc.integer({ min: -1, max: 100 })),
    successfulJobsHistoryLimit: maybe(fc.integer({ min: -1, max: 5 })),
    failedJobsHistoryLimit: maybe(fc.integer({ min: -1, max: 5 })),
    template: maybe(
      fc.record(
        {
          jobTemplate: maybe(
            fc.record({ spec: maybe(fc.record({ template: maybe(podTemplate) }, { requiredKeys: [] })) }),
          ),
          broadcastJobTemplate: maybe(fc.record({ spec: maybe(broadcastJobSpec) }, { requiredKeys: [] })),
          imageListPullJobTemplate: maybe(
            fc.record(
              {
                spec: maybe(
                  fc.record(
                    {
                      images: maybe(fc.constantFrom(['nginx:1'], [], ['a', 'a'], ['Bad Image'])),
                      completionPolicy: maybe(completionPolicy),
                    },
                    { requiredKeys: [] },
                  ),
                ),
              },
              { requiredKeys: [] },
            ),
          ),
        },
        { requiredKeys: [] },
      ),
    ),
  },
  { requiredKeys: [] },
);
const daemonSetSpec = fc.record(
  {
    selector: maybe(selector),
    template: maybe(podTemplate),
    minReadySeconds: maybe(fc.integer({ min: -1, max: 10 })),
    burstReplicas: maybe(intOrPercent),
    updateStrategy: maybe(
      fc.record(
        {
          type: maybe(fc.constantFrom('RollingUpdate', 'OnDelete', 'Other')),
          rollingUpdate: maybe(
            fc.record(
              {
                rollingUpdateType: maybe(
                  fc.constantFrom('Standard', 'Surging', 'InPlaceIfPossible', 'Other'),
                ),
                maxUnavailable: maybe(intOrPercent),
                maxSurge: maybe(intOrPercent),
                partition: maybe(intOrPercent),
              },
              { requiredKeys: [] },
            ),
          ),
        },
        { requiredKeys: [] },
      ),
    ),
  },
  { requiredKeys: [] },
);
const claimTemplate = fc.record(
  {
    metadata: maybe(fc.record({ name: maybe(fc.constantFrom('data', 'logs', '')) }, { requiredKeys: [] })),
    spec: maybe(
      fc.record(
        {
          storageClassName: maybe(fc.constantFrom('sc', 'missing')),
          accessModes: maybe(fc.constantFrom(['ReadWriteOnce'], ['ReadWriteOnce', 'ReadOnlyMany'])),
          resources: maybe(
            fc.record({ requests: maybe(fc.record({ storage: fc.constantFrom('1Gi', '2Gi', 'x') })) }),
          ),
        },
        { requiredKeys: [] },
      ),
    ),
  },
  { requiredKeys: [] },
);
const statefulSetSpec = fc.record(
  {
    replicas: maybe(fc.integer({ min: -2, max: 10 })),
    selector: maybe(selector),
    template: maybe(podTemplate),
    volumeClaimTemplates: maybe(fc.array(claimTemplate, { maxLength: 2 })),
    volumeClaimUpdateStrategy: maybe(
      fc.record({ type: maybe(fc.constantFrom('OnDelete', 'OnPodRollingUpdate', '')) }, { requiredKeys: [] }),
    ),
    serviceName: maybe(fc.constantFrom('svc', '')),
    podManagementPolicy: maybe(fc.constantFrom('OrderedReady', 'Parallel', 'Sometimes', '')),
    updateStrategy: maybe(
      fc.record(
        {
          type: maybe(fc.constantFrom('RollingUpdate', 'OnDelete', 'ReCreate', '')),
          rollingUpdate: maybe(
            fc.record(
              {
                partition: maybe(fc.integer({ min: -2, max: 5 })),
                maxUnavailable: maybe(intOrPercent),
                podUpdatePolicy: maybe(fc.constantFrom('ReCreate', 'InPlaceIfPossible', 'InPlaceOnly', 'x')),
                paused: maybe(fc.boolean()),
                minReadySeconds: maybe(fc.integer({ min: -1, max: 400 })),
                unorderedUpdate: maybe(
                  fc.record({ priorityStrategy: maybe(priorityStrategy) }, { requiredKeys: [] }),
                ),
              },
              { requiredKeys: [] },
            ),
          ),
        },
        { requiredKeys: [] },
      ),
    ),
    revisionHistoryLimit: maybe(fc.integer({ min: -1, max: 20 })),
    reserveOrdinals: maybe(
      fc.array(fc.oneof(fc.integer({ min: -2, max: 5 }), fc.constantFrom('1-3', '3-1', 'a-b', '4', '-1-2')), {
        maxLength: 3,
      }),
    ),
    lifecycle: maybe(fc.constant({ preDelete: { finalizersHandler: ['example.com/hold'] } })),
    scaleStrategy: maybe(fc.record({ maxUnavailable: maybe(intOrPercent) }, { requiredKeys: [] })),
    persistentVolumeClaimRetentionPolicy: maybe(
      fc.record(
        {
          whenDeleted: maybe(fc.constantFrom('Retain', 'Delete', 'Sometimes')),
          whenScaled: maybe(fc.constantFrom('Retain', 'Delete', '')),
        },
        { requiredKeys: [] },
      ),
    ),
    ordinals: maybe(fc.record({ start: fc.integer({ min: -1, max: 3 }) })),
  },
  { requiredKeys: [] },
);
const cloneSetSpec = fc.record(
  {
    replicas: maybe(fc.integer({ min: -2, max: 10 })),
    selector: maybe(selector),
    template: maybe(
      fc.record(
        { metadata: maybe(fc.record({ labels: maybe(labels) }, { requiredKeys: [] })), spec: maybe(podSpec) },
        { requiredKeys: [] },
      ),
    ),
    volumeClaimTemplates: maybe(
      fc.array(
        fc.record(
          { metadata: maybe(fc.record({ name: maybe(fc.constantFrom('data', '')) }, { requiredKeys: [] })) },
          { requiredKeys: [] },
        ),
        { maxLength: 2 },
      ),
    ),
    scaleStrategy: maybe(
      fc.record(
        {
          podsToDelete: maybe(fc.array(fc.constantFrom('p', 'p', 'missing'), { maxLength: 3 })),
          maxUnavailable: maybe(intOrPercent),
        },
        { requiredKeys: [] },
      ),
    ),
    updateStrategy: maybe(
      fc.record(
        {
          type: maybe(fc.constantFrom('ReCreate', 'InPlaceIfPossible', 'InPlaceOnly', 'OnDelete', '')),
          partition: maybe(intOrPercent),
          maxUnavailable: maybe(intOrPercent),
          maxSurge: maybe(intOrPercent),
          paused: maybe(fc.boolean()),
          priorityStrategy: maybe(priorityStrategy),
          scatterStrategy: maybe(
            fc.array(fc.record({ key: fc.constantFrom('k', ''), value: fc.constantFrom('v', 'w') }), {
              maxLength: 3,
            }),
          ),
        },
        { requiredKeys: [] },
      ),
    ),
    minReadySeconds: maybe(fc.integer({ min: -1, max: 100 })),
    progressDeadlineSeconds: maybe(fc.integer({ min: -1, max: 200 })),
  },
  { requiredKeys: [] },
);
const sidecarContainer = fc.record(
  {
    name: maybe(fc.constantFrom('app', 'app', 'Side', '')),
    image: maybe(image),
    restartPolicy: maybe(fc.constantFrom('Always', 'Never')),
    podInjectPolicy: maybe(fc.constantFrom('BeforeAppContainer', 'AfterAppContainer', 'Middle', '')),
    upgradeStrategy: maybe(
      fc.record(
        { upgradeType: maybe(fc.constantFrom('ColdUpgrade', 'HotUpgrade', 'x')) },
        { requiredKeys: [] },
      ),
    ),
    shareVolumePolicy: maybe(fc.record({ type: maybe(fc.constantFrom('enabled', 'disabled', 'x')) })),
    transferEnv: maybe(
      fc.array(
        fc.record(
          {
            envName: maybe(fc.constantFrom('A', '')),
            sourceContainerNameFrom: maybe(
              fc.record({
                fieldRef: maybe(
                  fc.record(
                    {
                      apiVersion: maybe(fc.constantFrom('v1', 'v2', '')),
                      fieldPath: maybe(
                        fc.constantFrom("metadata.labels['a']", 'metadata.name', "spec['x']", ''),
                      ),
                    },
                    { requiredKeys: [] },
                  ),
                ),
              }),
            ),
          },
          { requiredKeys: [] },
        ),
        { maxLength: 2 },
      ),
    ),
    resources: maybe(fc.constantFrom({}, { limits: { cpu: '1' } })),
    resourcesPolicy: maybe(
      fc.record(
        {
          targetContainersMode: maybe(fc.constantFrom('sum', 'max')),
          targetContainersNameRegex: maybe(fc.constantFrom('.*', '', '[', 'a(')),
          resourcesExpr: maybe(
            fc.record(
              {
                limits: maybe(
                  fc.record({ cpu: maybe(fc.constantFrom('cpu*50%', 'cpu *', '1/0', 'max(cpu)')) }),
                ),
                requests: maybe(fc.record({ memory: maybe(fc.string({ maxLength: 12 })) })),
              },
              { requiredKeys: [] },
            ),
          ),
        },
        { requiredKeys: [] },
      ),
    ),
  },
  { requiredKeys: [] },
);
const sidecarSetSpec = fc.record(
  {
    selector: maybe(selector),
    namespaceSelector: maybe(selector),
    namespace: maybe(fc.constantFrom('default', '')),
    containers: maybe(fc.array(sidecarContainer, { maxLength: 2 })),
    initContainers: maybe(fc.array(sidecarContainer, { maxLength: 1 })),
    volumes: maybe(
      fc.array(fc.record({ name: maybe(fc.constantFrom('data', 'data', 'Bad')) }, { requiredKeys: [] }), {
        maxLength: 2,
      }),
    ),
    updateStrategy: maybe(
      fc.record(
        {
          type: maybe(fc.constantFrom('RollingUpdate', 'NotUpdate', '')),
          partition: maybe(intOrPercent),
          maxUnavailable: maybe(intOrPercent),
          selector: maybe(selector),
          priorityStrategy: maybe(priorityStrategy),
          scatterStrategy: maybe(
            fc.array(fc.record({ key: fc.constantFrom('k', ''), value: fc.constantFrom('v', 'w') }), {
              maxLength: 3,
            }),
          ),
        },
        { requiredKeys: [] },
      ),
    ),
    injectionStrategy: maybe(
      fc.record(
        {
          revision: maybe(
            fc.record(
              {
                revisionName: maybe(fc.constantFrom('r1', 'r2')),
                customVersion: maybe(fc.constantFrom('v1', '')),
                policy: maybe(fc.constantFrom('Always', 'Partial', 'x')),
              },
              { requiredKeys: [] },
            ),
          ),
        },
        { requiredKeys: [] },
      ),
    ),
    patchPodMetadata: maybe(
      fc.array(
        fc.record(
          { annotations: maybe(labels), patchPolicy: maybe(fc.constantFrom('Retain', 'Overwrite', 'x')) },
          { requiredKeys: [] },
        ),
        { maxLength: 2 },
      ),
    ),
    revisionHistoryLimit: maybe(fc.integer({ min: -1, max: 20 })),
  },
  { requiredKeys: [] },
);
const podObject = fc.record(
  {
    metadata: maybe(
      fc.record(
        {
          name: maybe(fc.constantFrom('p', '')),
          generateName: maybe(fc.constantFrom('cs-', 'x'.repeat(80))),
          annotations: maybe(fc.constant({ 'apps.kruise.io/container-launch-priority': 'Ordered' })),
          ownerReferences: maybe(
            fc.constant([
              {
                apiVersion: 'apps.kruise.io/v1alpha1',
                kind: 'CloneSet',
                name: 'cs',
                uid: 'u',
                controller: true,
              },
            ]),
          ),
        },
        { requiredKeys: [] },
      ),
    ),
    spec: maybe(podSpec),
  },
  { requiredKeys: [] },
);

const pubObject = fc.record({
  metadata: fc.record(
    {
      name: fc.constantFrom('x', 'other', ''),
      namespace: maybe(fc.constant('default')),
      annotations: maybe(
        fc.record(
          {
            'kruise.io/pub-protect-operations': maybe(
              fc.constantFrom('DELETE,EVICT', '', 'UPDATE,x', 'RESIZE'),
            ),
            'pub.kruise.io/protect-total-replicas': maybe(fc.constantFrom('3', '-1', 'x', '2147483648')),
          },
          { requiredKeys: [] },
        ),
      ),
    },
    { requiredKeys: ['name'] },
  ),
  spec: maybe(
    fc.record(
      {
        selector: maybe(selector),
        targetRef: maybe(
          fc.record(
            {
              apiVersion: maybe(fc.constantFrom('apps/v1', 'apps/v1beta1', 'a/b/c', '', 'v1')),
              kind: maybe(fc.constantFrom('Deployment', 'CloneSet', '')),
              name: maybe(fc.constantFrom('web', '')),
            },
            { requiredKeys: [] },
          ),
        ),
        maxUnavailable: maybe(intOrPercent),
        minAvailable: maybe(intOrPercent),
      },
      { requiredKeys: [] },
    ),
  ),
});

const objectOf = (spec: fc.Arbitrary<unknown>) =>
  fc.oneof(
    { weight: 8, arbitrary: fc.record({ metadata: fc.constant({ name: 'x', namespace: 'default' }), spec }) },
    { weight: 1, arbitrary: fc.record({ metadata: weird, spec: weird }) },
    { weight: 1, arbitrary: weird },
  );

/** Kinds whose validating handler answers invalid objects 500, as upstream's does. */
const ANSWERS_500 = new Set(['BroadcastJob', 'DaemonSet', 'SidecarSet']);

function check(
  route: { kind: string; mutating: boolean; plural: string },
  handler: AdmissionHandler,
  object: unknown,
  oldObject: unknown,
  operation: 'CREATE' | 'UPDATE' | 'DELETE',
  version: string,
): Promise<void> {
  const request = admissionRequest(operation, { version, kind: 'X', plural: 'x' }, object, oldObject);
  // a subresource's webhook (pods/eviction) is asked about its subresource
  const subResource = route.plural.split('/')[1];
  if (subResource) Object.assign(request, { subResource, name: 'p', namespace: 'default' });
  return Promise.resolve(handler(request)).then((r: AdmissionResponse) => {
    const outcome = r.allowed
      ? 'allowed'
      : r.status?.message?.startsWith('json: ')
        ? 'undecodable'
        : 'denied';
    seen.set(outcome, (seen.get(outcome) ?? 0) + 1);
    if (r.allowed) {
      if (r.patch) expect(Array.isArray(JSON.parse(Buffer.from(r.patch, 'base64').toString()))).toBe(true);
    } else {
      expect(r.status?.message, JSON.stringify(object)?.slice(0, 300)).toMatch(/\S/);
      expect(r.status?.code).toBeGreaterThanOrEqual(400);
      // Upstream's BroadcastJob, DaemonSet and SidecarSet validation answer field errors 500 (admission.Errored).
      expect(r.status?.code).toBeLessThan(!route.mutating && ANSWERS_500.has(route.kind) ? 501 : 500);
    }
  });
}

const specs: Record<string, fc.Arbitrary<unknown>> = {
  ImagePullJob: jobSpec,
  ImageListPullJob: jobSpec,
  NodeImage: nodeImageSpec,
  ContainerRecreateRequest: crrSpec,
  CloneSet: cloneSetSpec,
  BroadcastJob: broadcastJobSpec,
  AdvancedCronJob: advancedCronJobSpec,
  DaemonSet: daemonSetSpec,
};
/** Objects with a resourceVersion, so updates reach past the metadata rules. */
const stored = (spec: fc.Arbitrary<unknown>) =>
  fc.oneof(
    {
      weight: 8,
      arbitrary: fc.record({
        metadata: fc.constant({ name: 'x', namespace: 'default', resourceVersion: '1' }),
        spec,
      }),
    },
    { weight: 1, arbitrary: fc.record({ metadata: weird, spec: weird }) },
    { weight: 1, arbitrary: weird },
  );

/** Objects deletion protection reads: its label, a deletionTimestamp, replicas, a CRD's versions. */
const protectedObject = fc.oneof(
  {
    weight: 8,
    arbitrary: fc.record({
      metadata: fc.record(
        {
          name: fc.constantFrom('x', ''),
          labels: maybe(
            fc.record({
              'policy.kruise.io/delete-protection': maybe(fc.constantFrom('Always', 'Cascading', 'x')),
            }),
          ),
          deletionTimestamp: maybe(fc.constant('2026-01-01T00:00:00Z')),
        },
        { requiredKeys: ['name'] },
      ),
      spec: maybe(
        fc.record(
          {
            replicas: maybe(fc.integer({ min: -1, max: 3 })),
            group: maybe(fc.constantFrom('example.com', '')),
            names: maybe(fc.record({ plural: maybe(fc.constant('widgets')) }, { requiredKeys: [] })),
            versions: maybe(
              fc.array(fc.record({ name: maybe(fc.constant('v1')), storage: maybe(fc.boolean()) })),
            ),
          },
          { requiredKeys: [] },
        ),
      ),
    }),
  },
  { weight: 1, arbitrary: fc.record({ metadata: weird, spec: weird }) },
  { weight: 1, arbitrary: weird },
);

/** Kinds whose generated objects are whole objects rather than a spec. */
const objects: Record<string, fc.Arbitrary<unknown>> = {
  Deployment: protectedObject,
  ReplicaSet: protectedObject,
  Namespace: protectedObject,
  Service: protectedObject,
  Ingress: protectedObject,
  CustomResourceDefinition: protectedObject,
  Pod: fc.oneof({ weight: 9, arbitrary: podObject }, { weight: 1, arbitrary: weird }),
  PodUnavailableBudget: fc.oneof(
    { weight: 8, arbitrary: pubObject },
    { weight: 1, arbitrary: fc.record({ metadata: weird, spec: weird }) },
    { weight: 1, arbitrary: weird },
  ),
  StatefulSet: stored(statefulSetSpec),
  // cluster-scoped: no namespace
  SidecarSet: fc.oneof(
    {
      weight: 8,
      arbitrary: fc.record({
        metadata: fc.constantFrom({ name: 'x', resourceVersion: '1' }, { name: 'x', labels: { app: 'a' } }),
        spec: sidecarSetSpec,
      }),
    },
    { weight: 1, arbitrary: fc.record({ metadata: weird, spec: weird }) },
    { weight: 1, arbitrary: weird },
  ),
};

/** How the generated requests were answered (so the property is known to reach past decoding). */
const seen = new Map<string, number>();

describe('admission handlers under generated malformed objects', () => {
  for (const route of routes) {
    it(`${route.mutating ? 'mutating' : 'validating'} ${route.kind}${route.plural.includes('/') ? ` (${route.plural})` : ''}: allowed or denied (4xx) with a message, never a crash`, async () => {
      const arb = objects[route.kind] ?? objectOf(specs[route.kind]!);
      await fc.assert(
        fc.asyncProperty(
          arb,
          arb,
          fc.constantFrom(
            ...((route.operations ?? ['CREATE', 'UPDATE']) as ('CREATE' | 'UPDATE' | 'DELETE')[]),
          ),
          fc.constantFrom(...(route.versions ?? ['v1alpha1'])),
          (obj, old, op, version) => check(route, route.handler, obj, old, op, version),
        ),
        { numRuns: 1500 },
      );
      // Both the decoding and the handler's own rules were reached.
      expect(seen.get('undecodable')).toBeGreaterThan(0);
      expect((seen.get('allowed') ?? 0) + (seen.get('denied') ?? 0)).toBeGreaterThan(100);
      seen.clear();
    });
  }
});
