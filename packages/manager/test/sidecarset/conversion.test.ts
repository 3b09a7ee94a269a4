import type { KubeObject } from '@kruise/runtime';
import { describe, expect, it } from 'vitest';
import { kruiseConversions } from '../../src/webhooks/conversion/index.ts';

const registry = kruiseConversions();

const spec = {
  selector: { matchLabels: { app: 'web' } },
  containers: [{ name: 'proxy', image: 'envoy:1', podInjectPolicy: 'BeforeAppContainer' }],
  updateStrategy: { type: 'RollingUpdate', maxUnavailable: 1 },
};
const status = { observedGeneration: 2, matchedPods: 3, updatedPods: 1, readyPods: 3, latestRevision: 'r1' };

describe('SidecarSet conversion', () => {
  it('turns a v1alpha1 namespace into a namespaceSelector on the namespace name label', () => {
    const alpha: KubeObject = {
      apiVersion: 'apps.kruise.io/v1alpha1',
      kind: 'SidecarSet',
      metadata: { name: 's' },
      spec: { ...spec, namespace: 'team-a', namespaceSelector: { matchLabels: { other: 'x' } } },
      status,
    };
    const beta = registry.convert(alpha, 'apps.kruise.io/v1beta1');
    expect(beta.spec).toEqual({
      ...spec,
      namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'team-a' } },
    });
    expect(beta.status).toEqual(status);
    // Back at v1alpha1 the selector stays a selector (upstream does not restore `namespace`).
    const again = registry.convert(beta, 'apps.kruise.io/v1alpha1');
    expect((again.spec as Record<string, unknown>).namespace).toBeUndefined();
    expect((again.spec as Record<string, unknown>).namespaceSelector).toEqual({
      matchLabels: { 'kubernetes.io/metadata.name': 'team-a' },
    });
  });

  it('keeps customVersion as a label at v1alpha1 and a spec field at v1beta1', () => {
    const beta: KubeObject = {
      apiVersion: 'apps.kruise.io/v1beta1',
      kind: 'SidecarSet',
      metadata: { name: 's', labels: { team: 'a' } },
      spec: { ...spec, customVersion: 'v2' },
    };
    const alpha = registry.convert(beta, 'apps.kruise.io/v1alpha1');
    expect(alpha.metadata?.labels).toEqual({ team: 'a', 'apps.kruise.io/sidecarset-custom-version': 'v2' });
    expect((alpha.spec as Record<string, unknown>).customVersion).toBeUndefined();
    const back = registry.convert(alpha, 'apps.kruise.io/v1beta1');
    expect(back).toEqual(beta);
  });
});
