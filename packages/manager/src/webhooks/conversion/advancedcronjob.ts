import { V1BETA1_ONLY_SPEC_ANNOTATION } from '@kruise/api';
import type { KindConversion, KubeObject } from '@kruise/runtime';
import { specStash } from './stash.ts';

/** The template field only v1beta1 has (upstream v1.9 added ImageListPullJob templates there alone). */
const V1BETA1_ONLY_TEMPLATE = ['imageListPullJobTemplate'] as const;

const stash = specStash(V1BETA1_ONLY_SPEC_ANNOTATION, V1BETA1_ONLY_TEMPLATE);

/** Applies a stash function to `spec.template` (the stash works on the `spec` of what it is given). */
function onTemplate(obj: KubeObject, apply: (o: KubeObject) => KubeObject): KubeObject {
  const template = obj.spec?.template;
  if (!template || typeof template !== 'object') return obj;
  const view = apply({ metadata: obj.metadata, spec: { ...template } });
  obj.metadata = view.metadata;
  obj.spec = { ...obj.spec, template: view.spec };
  return obj;
}

/**
 * AdvancedCronJob: v1beta1 (storage, the hub) ⇄ v1alpha1. Every field is the same at both versions
 * but `spec.template.imageListPullJobTemplate`, which v1alpha1 lacks: while the object is read at
 * v1alpha1 it travels in an annotation (upstream refuses to convert such an object instead), so a
 * v1alpha1 write loses nothing.
 */
export const advancedCronJobConversion: KindConversion = {
  group: 'apps.kruise.io',
  kind: 'AdvancedCronJob',
  hub: 'v1beta1',
  spokes: {
    v1alpha1: {
      toHub: (obj) => onTemplate(obj, (o) => stash.restore(o)),
      fromHub: (obj) => onTemplate(obj, (o) => stash.stash(o)),
    },
  },
};
