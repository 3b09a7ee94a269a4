import type { SidecarSet } from '@kruise/api';
import { labelSelectorMatches } from '@kruise/kube-compat';
import type { ConfigMap } from 'kubernetes-types/core/v1.js';
import { SIDECARSET_PATCH_METADATA_WHITELIST_KEY } from '../../workload/sidecarset/index.ts';
import { goRegexp, goRegexpError } from './go-regexp.ts';

const OPERATORS = ['In', 'NotIn', 'Exists', 'DoesNotExist'];

/** `SidecarSet_PatchPodMetadata_WhiteList` of `kruise-configuration`: rules of allowed annotation keys. */
interface WhiteList {
  rules?: {
    selector?: { matchLabels?: Record<string, string>; matchExpressions?: any[] } | null;
    allowedAnnotationKeyExprs?: string[];
  }[];
}

/**
 * Upstream's ValidateSidecarSetPatchMetadataWhitelist: the problem with the SidecarSet's
 * patchPodMetadata annotation keys, or undefined when allowed. Without a whitelist (no ConfigMap,
 * no key) or without a rule for this SidecarSet's labels, patching is refused unless gate
 * SidecarSetPatchPodMetadataDefaultsAllowed is on; with rules, every key must match one of the
 * expressions of the rules whose selector (none: every SidecarSet) matches the SidecarSet's labels.
 */
export function patchMetadataWhitelistError(
  sidecarSet: SidecarSet,
  configuration: ConfigMap | undefined,
  defaultsAllowed: boolean,
): string | undefined {
  const patches = sidecarSet.spec?.patchPodMetadata ?? [];
  if (!patches.length) return undefined;
  const raw = configuration?.data?.[SIDECARSET_PATCH_METADATA_WHITELIST_KEY];
  if (raw === undefined) return defaultsAllowed ? undefined : 'SidecarSet patch metadata whitelist not found';
  let whitelist: WhiteList;
  try {
    whitelist = (JSON.parse(raw) ?? {}) as WhiteList;
  } catch (err) {
    return (err as Error).message;
  }
  const expressions: RegExp[] = [];
  for (const rule of whitelist.rules ?? []) {
    const bad = rule.selector?.matchExpressions?.find((e) => !OPERATORS.includes(e?.operator));
    if (bad) return `${JSON.stringify(String(bad.operator))} is not a valid pod selector operator`;
    if (rule.selector && !labelSelectorMatches(rule.selector, sidecarSet.metadata?.labels ?? {})) continue;
    for (const expr of rule.allowedAnnotationKeyExprs ?? []) {
      const e = goRegexpError(expr);
      if (e) return e;
      expressions.push(goRegexp(expr));
    }
  }
  if (!expressions.length)
    return defaultsAllowed ? undefined : 'sidecarSet patch metadata annotation is not allowed';
  for (const patch of patches)
    for (const key of Object.keys(patch.annotations ?? {}))
      if (!expressions.some((r) => r.test(key)))
        return `sidecarSet patch metadata annotation(${key}) is not allowed`;
  return undefined;
}
