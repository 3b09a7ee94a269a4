import { V1BETA1_ONLY_SPEC_ANNOTATION } from '@kruise/api';
import { StatefulSetSpecV1alpha1Schema, StatefulSetStatusV1alpha1Schema } from '@kruise/api/schemas';
import type { KubeObject } from '@kruise/runtime';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { kruiseConversions } from '../src/webhooks/conversion/index.ts';
import {
  STATEFULSET_V1BETA1_ONLY_SPEC,
  STATEFULSET_V1BETA1_ONLY_STATUS,
} from '../src/webhooks/conversion/statefulset.ts';

/**
 * Advanced StatefulSet read at one version and written back at the other, over generated objects:
 * nothing a user set is lost either way (upstream drops v1beta1's own fields at v1alpha1).
 */
const registry = kruiseConversions();
const ALPHA = 'apps.kruise.io/v1alpha1';
const BETA = 'apps.kruise.io/v1beta1';
const convert = (obj: KubeObject, to: string) => registry.convert(obj, to);

const maybe = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined });
/** A record whose keys may be absent (never present with `undefined`). */
const partial = <T extends Record<string, unknown>>(model: { [K in keyof T]: fc.Arbitrary<T[K]> }) =>
  fc.record(model, { requiredKeys: [] });
const name = fc.stringMatching(/^[a-z][a-z0-9-]{0,12}$/);
const labels = fc.dictionary(fc.stringMatching(/^[a-z]([a-z./-]{0,10}[a-z])?$/), name, {
  minKeys: 1,
  maxKeys: 3,
});
const int32 = fc.integer({ min: 0, max: 2 ** 31 - 1 });
const intOrString = fc.oneof(fc.nat(20), fc.constantFrom('10%', '50%', '3'));
const json = fc.jsonValue({ maxDepth: 2 });

/** What both versions have in `spec`. */
const sharedSpec = {
  replicas: int32,
  selector: fc.record({ matchLabels: labels }),
  template: fc.record({
    metadata: fc.record({ labels }),
    spec: fc.record({
      containers: fc.array(fc.record({ name, image: name }), { minLength: 1, maxLength: 2 }),
      extra: fc.dictionary(name, json, { maxKeys: 2 }),
    }),
  }),
  volumeClaimTemplates: fc.array(json, { maxLength: 2 }),
  serviceName: name,
  podManagementPolicy: fc.constantFrom('OrderedReady', 'Parallel'),
  updateStrategy: partial({
    type: fc.constantFrom('RollingUpdate', 'OnDelete'),
    rollingUpdate: partial({
      partition: int32,
      maxUnavailable: intOrString,
      podUpdatePolicy: fc.constantFrom('ReCreate', 'InPlaceIfPossible', 'InPlaceOnly'),
      paused: fc.boolean(),
      unorderedUpdate: partial({
        priorityStrategy: partial({
          weightPriority: fc.array(
            fc.record({
              weight: fc.integer({ min: 1, max: 100 }),
              matchSelector: fc.record({ matchLabels: labels }),
            }),
            { maxLength: 2 },
          ),
        }),
      }),
      inPlaceUpdateStrategy: partial({ gracePeriodSeconds: int32 }),
      minReadySeconds: fc.integer({ min: 0, max: 300 }),
    }),
  }),
  revisionHistoryLimit: int32,
};
const hook = partial({
  finalizersHandler: fc.array(name, { maxLength: 2 }),
  labelsHandler: labels,
  markPodNotReady: fc.boolean(),
});
/** What only v1beta1 has in `spec`. */
const betaOnlySpec = {
  reserveOrdinals: fc.array(fc.oneof(fc.nat(50), fc.constantFrom('1-3', '7')), { maxLength: 3 }),
  lifecycle: partial({ preDelete: hook, inPlaceUpdate: hook, preNormal: hook }),
  scaleStrategy: partial({ maxUnavailable: intOrString }),
  persistentVolumeClaimRetentionPolicy: partial({
    whenDeleted: fc.constantFrom('Retain', 'Delete'),
    whenScaled: fc.constantFrom('Retain', 'Delete'),
  }),
  ordinals: partial({ start: int32 }),
  volumeClaimUpdateStrategy: partial({ type: fc.constantFrom('OnPodRollingUpdate', 'OnDelete') }),
};
const condition = fc.record({
  type: name,
  status: fc.constantFrom('True', 'False', 'Unknown'),
  reason: name,
});
const sharedStatus = {
  observedGeneration: int32,
  replicas: int32,
  readyReplicas: int32,
  availableReplicas: int32,
  currentReplicas: int32,
  updatedReplicas: int32,
  currentRevision: name,
  updateRevision: name,
  collisionCount: int32,
  conditions: fc.array(condition, { maxLength: 2 }),
  labelSelector: name,
};
const betaOnlyStatus = {
  updatedReadyReplicas: int32,
  updatedAvailableReplicas: int32,
  volumeClaims: fc.array(
    fc.record({ volumeClaimName: name, compatibleReplicas: int32, compatibleReadyReplicas: int32 }),
    { maxLength: 2 },
  ),
};
/** Annotations a user may set (the converter's own key aside). */
const userAnnotations = fc.dictionary(
  fc.stringMatching(/^[a-z]([a-z./-]{0,14}[a-z])?$/).filter((k) => k !== V1BETA1_ONLY_SPEC_ANNOTATION),
  fc.string({ maxLength: 20 }),
  { minKeys: 1, maxKeys: 3 },
);
const metadata = (annotations: fc.Arbitrary<Record<string, string> | undefined>) =>
  fc
    .record({
      name,
      namespace: name,
      uid: fc.uuid(),
      generation: fc.integer({ min: 1, max: 100 }),
      resourceVersion: fc.nat().map(String),
      labels: maybe(labels),
      annotations,
    })
    .map(({ labels: l, annotations: a, ...rest }) => ({
      ...rest,
      ...(l ? { labels: l } : {}),
      ...(a ? { annotations: a } : {}),
    }));
const withoutUndefined = <T extends object>(o: T) =>
  Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;

/** An Advanced StatefulSet at v1beta1, as stored. */
const betaObject = fc
  .record({
    metadata: metadata(maybe(userAnnotations)),
    spec: partial({ ...sharedSpec, ...betaOnlySpec }),
    status: maybe(partial({ ...sharedStatus, ...betaOnlyStatus })),
  })
  .map((o) => withoutUndefined({ apiVersion: BETA, kind: 'StatefulSet', ...o }));

/**
 * An Advanced StatefulSet at v1alpha1, as a client has it: read from v1beta1 (with the stash of
 * v1beta1's own fields, as the converter writes it), or with a value of its own under that key.
 */
const alphaObject = fc
  .record({
    metadata: metadata(maybe(userAnnotations)),
    spec: partial(sharedSpec),
    status: maybe(partial(sharedStatus)),
    stash: fc.oneof(
      fc.constant(undefined),
      partial(betaOnlySpec)
        .filter((s) => Object.keys(s).length > 0)
        .map((s) =>
          JSON.stringify(
            Object.fromEntries(STATEFULSET_V1BETA1_ONLY_SPEC.filter((f) => f in s).map((f) => [f, s[f]])),
          ),
        ),
      fc.constantFrom('not json', '[]', '{}', '{"replicas":3}', '{"reserveOrdinals":[1],"other":true}'),
    ),
  })
  .map(({ stash, metadata: m, ...o }) =>
    withoutUndefined({
      apiVersion: ALPHA,
      kind: 'StatefulSet',
      metadata:
        stash === undefined
          ? m
          : { ...m, annotations: { ...m.annotations, [V1BETA1_ONLY_SPEC_ANNOTATION]: stash } },
      ...o,
    }),
  );

describe('Advanced StatefulSet conversion (v1alpha1 ⇄ v1beta1)', () => {
  it('reads a v1alpha1 object as v1beta1 and back unchanged', () => {
    fc.assert(
      fc.property(alphaObject, (alpha) => {
        expect(convert(convert(alpha, BETA), ALPHA)).toEqual(alpha);
      }),
      { numRuns: 500 },
    );
  });

  it('reads a v1beta1 object as v1alpha1 and back with its spec and metadata unchanged', () => {
    fc.assert(
      fc.property(betaObject, (beta) => {
        const back = convert(convert(beta, ALPHA), BETA);
        expect(back.metadata).toEqual(beta.metadata);
        expect(back.spec).toEqual(beta.spec);
        // status: v1alpha1 has no place for v1beta1's own fields (a write there keeps the stored status)
        const status = beta.status && { ...beta.status };
        for (const f of STATEFULSET_V1BETA1_ONLY_STATUS) delete status?.[f];
        expect(back.status).toEqual(status);
      }),
      { numRuns: 500 },
    );
  });

  it('gives v1alpha1 only fields its schema has, and keeps the rest in the annotation', () => {
    const alphaSpec = Object.keys(StatefulSetSpecV1alpha1Schema.properties);
    const alphaStatus = Object.keys(StatefulSetStatusV1alpha1Schema.properties);
    fc.assert(
      fc.property(betaObject, (beta) => {
        const alpha = convert(beta, ALPHA);
        expect(alpha.apiVersion).toBe(ALPHA);
        expect(Object.keys(alpha.spec ?? {}).filter((k) => !alphaSpec.includes(k))).toEqual([]);
        expect(Object.keys(alpha.status ?? {}).filter((k) => !alphaStatus.includes(k))).toEqual([]);
        const own = STATEFULSET_V1BETA1_ONLY_SPEC.filter((f) => beta.spec?.[f] !== undefined);
        const stash = alpha.metadata?.annotations?.[V1BETA1_ONLY_SPEC_ANNOTATION];
        if (own.length) expect(Object.keys(JSON.parse(stash))).toEqual(own);
        else expect(stash).toBeUndefined();
      }),
      { numRuns: 300 },
    );
  });

  it('keeps reserveOrdinals and lifecycle through a v1alpha1 read (the example of the ADR)', () => {
    const beta = {
      apiVersion: BETA,
      kind: 'StatefulSet',
      metadata: { name: 'web', namespace: 'default' },
      spec: {
        replicas: 3,
        selector: { matchLabels: { app: 'web' } },
        reserveOrdinals: [1, '3-4'],
        lifecycle: { preDelete: { labelsHandler: { hold: 'true' } } },
      },
    };
    const alpha = convert(beta, ALPHA);
    expect(alpha).toEqual({
      apiVersion: ALPHA,
      kind: 'StatefulSet',
      metadata: {
        name: 'web',
        namespace: 'default',
        annotations: {
          'apps.kruise.io/v1beta1-only-spec':
            '{"reserveOrdinals":[1,"3-4"],"lifecycle":{"preDelete":{"labelsHandler":{"hold":"true"}}}}',
        },
      },
      spec: { replicas: 3, selector: { matchLabels: { app: 'web' } } },
    });
    // a v1alpha1 client changes replicas and writes the object back
    expect(convert({ ...alpha, spec: { ...alpha.spec, replicas: 5 } }, BETA)).toEqual({
      ...beta,
      spec: { ...beta.spec, replicas: 5 },
    });
  });

  it('leaves an annotation value that is not its stash where it is', () => {
    const alpha = {
      apiVersion: ALPHA,
      kind: 'StatefulSet',
      metadata: { name: 'web', annotations: { [V1BETA1_ONLY_SPEC_ANNOTATION]: '{"replicas":9}' } },
      spec: { replicas: 1 },
    };
    expect(convert(alpha, BETA)).toEqual({ ...alpha, apiVersion: BETA });
  });
});
