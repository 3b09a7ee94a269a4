import { V1BETA1_ONLY_SPEC_ANNOTATION } from '@kruise/api';
import type { KubeObject } from '@kruise/runtime';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { kruiseConversions } from '../../src/webhooks/conversion/index.ts';

/** AdvancedCronJob read at one version and written back at the other: nothing a user set is lost. */
const registry = kruiseConversions();
const ALPHA = 'apps.kruise.io/v1alpha1';
const BETA = 'apps.kruise.io/v1beta1';

const name = fc.stringMatching(/^[a-z][a-z0-9-]{0,12}$/);
const json = fc.jsonValue({ maxDepth: 2 });
const annotations = fc.dictionary(fc.stringMatching(/^[a-z]{1,8}$/), name, { minKeys: 1, maxKeys: 2 });

const template = fc.oneof(
  fc.record({ jobTemplate: fc.record({ spec: fc.dictionary(name, json, { maxKeys: 3 }) }) }),
  fc.record({ broadcastJobTemplate: fc.record({ spec: fc.dictionary(name, json, { maxKeys: 3 }) }) }),
  fc.record({
    imageListPullJobTemplate: fc.record({
      metadata: fc.record({ labels: fc.dictionary(name, name, { maxKeys: 2 }) }),
      spec: fc.record({
        images: fc.array(name, { minLength: 1, maxLength: 3 }),
        completionPolicy: fc.constant({}),
      }),
    }),
  }),
);

const acj = fc.record({
  apiVersion: fc.constant(BETA),
  kind: fc.constant('AdvancedCronJob'),
  metadata: fc.record(
    { name, namespace: fc.constant('default'), annotations },
    { requiredKeys: ['name', 'namespace'] },
  ),
  spec: fc.record(
    {
      schedule: fc.constantFrom('*/5 * * * *', '@every 10s', 'TZ=UTC @hourly'),
      timeZone: fc.constantFrom('Europe/Berlin', 'UTC'),
      concurrencyPolicy: fc.constantFrom('Allow', 'Forbid', 'Replace'),
      paused: fc.boolean(),
      startingDeadlineSeconds: fc.nat(1000),
      successfulJobsHistoryLimit: fc.nat(10),
      failedJobsHistoryLimit: fc.nat(10),
      template,
    },
    { requiredKeys: ['schedule', 'template'] },
  ),
  status: fc.record(
    {
      type: fc.constantFrom('Job', 'BroadcastJob', 'ImageListPullJob'),
      active: fc.array(fc.record({ kind: fc.constant('Job'), name, namespace: fc.constant('default') }), {
        maxLength: 2,
      }),
      lastScheduleTime: fc.constant('2026-11-26T10:00:00Z'),
    },
    { requiredKeys: [] },
  ),
});

describe('AdvancedCronJob conversion', () => {
  it('round-trips every object through v1alpha1 and back unchanged', () => {
    fc.assert(
      fc.property(acj, (obj) => {
        const alpha = registry.convert(structuredClone(obj) as KubeObject, ALPHA);
        expect(alpha.apiVersion).toBe(ALPHA);
        expect(alpha.spec.template.imageListPullJobTemplate).toBeUndefined();
        expect(registry.convert(alpha, BETA)).toEqual(obj);
      }),
    );
  });

  it('keeps an ImageListPullJob template in an annotation while read at v1alpha1, and nothing else changes', () => {
    const ilpj = { spec: { images: ['nginx:1.27'], completionPolicy: { type: 'Always' } } };
    const obj: KubeObject = {
      apiVersion: BETA,
      kind: 'AdvancedCronJob',
      metadata: { name: 'pull', namespace: 'default' },
      spec: { schedule: '@daily', template: { imageListPullJobTemplate: ilpj } },
    };
    const alpha = registry.convert(structuredClone(obj), ALPHA);
    expect(alpha.spec).toEqual({ schedule: '@daily', template: {} });
    expect(JSON.parse(alpha.metadata!.annotations![V1BETA1_ONLY_SPEC_ANNOTATION]!)).toEqual({
      imageListPullJobTemplate: ilpj,
    });
    const job = { ...obj, spec: { schedule: '@daily', template: { jobTemplate: { spec: {} } } } };
    expect(registry.convert(structuredClone(job), ALPHA)).toEqual({ ...job, apiVersion: ALPHA });
  });
});
