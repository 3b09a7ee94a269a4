import type { KubeObject } from '@kruise/runtime';
import { describe, expect, it } from 'vitest';
import { kruiseConversions } from '../src/webhooks/conversion/index.ts';

/** BroadcastJob read at v1alpha1 and written back at v1beta1: every field survives, only apiVersion changes. */
const registry = kruiseConversions();

const job = (apiVersion: string): KubeObject => ({
  apiVersion,
  kind: 'BroadcastJob',
  metadata: { name: 'bcj', namespace: 'default', annotations: { note: 'kept' } },
  spec: {
    parallelism: '50%',
    template: { spec: { restartPolicy: 'OnFailure', containers: [{ name: 'c', image: 'busybox' }] } },
    completionPolicy: { type: 'Always', activeDeadlineSeconds: 30, ttlSecondsAfterFinished: 5 },
    paused: true,
    failurePolicy: { type: 'Continue', restartLimit: 3 },
  },
  status: { active: 1, succeeded: 2, failed: 0, desired: 3, phase: 'running' },
});

describe('BroadcastJob conversion', () => {
  it('converts between v1alpha1 and v1beta1 keeping every field', () => {
    const alpha = registry.convert(job('apps.kruise.io/v1beta1'), 'apps.kruise.io/v1alpha1');
    expect(alpha).toEqual(job('apps.kruise.io/v1alpha1'));
    expect(registry.convert(alpha, 'apps.kruise.io/v1beta1')).toEqual(job('apps.kruise.io/v1beta1'));
  });
});
