import type { KindConversion } from '@kruise/runtime';

/**
 * BroadcastJob: v1beta1 (storage, the hub) ⇄ v1alpha1. Both versions have exactly the same fields,
 * so an object converts unchanged apart from its `apiVersion` (which the registry sets).
 */
export const broadcastJobConversion: KindConversion = {
  group: 'apps.kruise.io',
  kind: 'BroadcastJob',
  hub: 'v1beta1',
  spokes: {
    v1alpha1: {
      toHub: (obj) => obj,
      fromHub: (obj) => obj,
    },
  },
};
