import type { CloneSet, CloneSetSpec, FeatureGates } from '@kruise/api';
import { labelSelectorMatches, scaledValue } from '@kruise/kube-compat';
import { type AdmissionHandler, type AdmissionRequest, allowed, denied } from '@kruise/runtime';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { workloadDeletionDenial } from '../../workload/deletion-protection/index.ts';
import { decodeObject } from '../decode.ts';
import {
  aggregate,
  type FieldError,
  forbidden,
  goIntOrString,
  goLabelSelector,
  goStringMap,
  goStringSlice,
  invalid,
  nonNegative,
  required,
} from '../field-errors.ts';
import { dns1123SubdomainErrors, labelsErrors, podTemplateErrors } from '../pod-template-validation.ts';
import { firstNonImageChange, specChangedBeyond } from '../spec-update.ts';
import { labelSelectorError, priorityStrategyError } from '../validation.ts';

const MAX_INT32 = 2 ** 31 - 1;
const IMAGE_PATH = /^\/containers\/([0-9]+)\/image$/;

/** Reads a pod for the podsToDelete checks; throws with the API's message (e.g. `pods "x" not found`). */
export type PodGetter = (namespace: string, name: string) => Promise<Pod>;

function metadataErrors(cs: CloneSet): FieldError[] {
  const out: FieldError[] = [];
  const name = cs.metadata?.name ?? '';
  if (name) for (const msg of dns1123SubdomainErrors(name)) out.push(invalid('metadata.name', name, msg));
  out.push(...labelsErrors(cs.metadata?.labels, 'metadata.labels'));
  return out;
}

async function scaleStrategyErrors(
  spec: CloneSetSpec,
  old: CloneSetSpec | undefined,
  cs: CloneSet,
  getPod: PodGetter,
): Promise<FieldError[]> {
  const field = 'spec.scaleStrategy.podsToDelete';
  const names = spec.scaleStrategy?.podsToDelete ?? [];
  const seen = new Set<string>();
  const dups = new Set<string>();
  for (const n of names) (seen.has(n) ? dups : seen).add(n);
  if (dups.size) return [invalid(field, goStringSlice(names), `duplicated items [${[...dups].join(' ')}]`)];
  const added = [...seen].filter((n) => !(old?.scaleStrategy?.podsToDelete ?? []).includes(n)).sort();
  const out: FieldError[] = [];
  for (const name of added) {
    let pod: Pod;
    try {
      pod = await getPod(cs.metadata?.namespace ?? '', name);
    } catch (err) {
      out.push(invalid(field, name, `find pod ${name} failed: ${(err as Error).message}`));
      continue;
    }
    const owner = pod.metadata?.ownerReferences?.find((r) => r.controller);
    if (pod.metadata?.deletionTimestamp)
      out.push(invalid(field, name, `find pod ${name} already terminating`));
    else if (!owner || owner.uid !== cs.metadata?.uid)
      out.push(invalid(field, name, `find pod ${name} owner is not this CloneSet`));
  }
  return out;
}

function intOrPercentText(v: number | string | undefined | null): string {
  return v === undefined || v === null ? '' : String(v);
}

function updateStrategyErrors(spec: CloneSetSpec, replicas: number): FieldError[] {
  const s = spec.updateStrategy ?? {};
  const f = 'spec.updateStrategy';
  const out: FieldError[] = [];
  if (!['ReCreate', 'InPlaceIfPossible', 'InPlaceOnly'].includes(s.type ?? ''))
    out.push(invalid(`${f}.type`, s.type ?? '', "must be 'ReCreate', InPlaceIfPossible or 'InPlaceOnly'"));
  const scaled = (name: string, v: number | string | undefined | null): number => {
    try {
      return scaledValue(v, replicas, true);
    } catch (err) {
      out.push(
        invalid(
          `${f}.${name}`,
          intOrPercentText(v),
          `failed GetScaledValueFromIntOrPercent for ${name}: ${(err as Error).message}`,
        ),
      );
      return 0;
    }
  };
  out.push(...nonNegative(`${f}.partition`, scaled('partition', s.partition)));
  const why = priorityStrategyError(s.priorityStrategy);
  if (why) out.push(required(`${f}.priorityStrategy`, why));
  const ids = new Set<string>();
  for (const term of s.scatterStrategy ?? []) {
    if (!term.key) {
      out.push(required(`${f}.scatterStrategy`, 'key should not be empty'));
      break;
    }
    const id = `${term.key}:${term.value}`;
    if (ids.has(id)) {
      out.push(required(`${f}.scatterStrategy`, `duplicated key=${term.key} value=${term.value}`));
      break;
    }
    ids.add(id);
  }
  const maxUnavailable =
    s.maxUnavailable === undefined || s.maxUnavailable === null
      ? 0
      : scaled('maxUnavailable', s.maxUnavailable);
  let maxSurge = 0;
  if (s.maxSurge !== undefined && s.maxSurge !== null) {
    maxSurge = scaled('maxSurge', s.maxSurge);
    if (s.type === 'InPlaceOnly' && maxSurge > 0)
      out.push(
        invalid(
          `${f}.maxSurge`,
          intOrPercentText(s.maxSurge),
          'can not use maxSurge with strategy type InPlaceOnly',
        ),
      );
  }
  if (replicas > 0 && maxUnavailable < 1 && maxSurge < 1)
    out.push(
      invalid(
        `${f}.maxUnavailable`,
        goIntOrString(s.maxUnavailable),
        'maxUnavailable and maxSurge should not both be less than 1',
      ),
    );
  return out;
}

async function specErrors(cs: CloneSet, old: CloneSet | undefined, getPod: PodGetter): Promise<FieldError[]> {
  const spec = cs.spec ?? ({} as CloneSetSpec);
  const replicas = spec.replicas ?? 1;
  const out: FieldError[] = [...nonNegative('spec.replicas', replicas)];
  const selector = spec.selector;
  let selectorOk = true;
  if (!selector) out.push(required('spec.selector'));
  else {
    const e = labelSelectorError(selector);
    if (e) {
      selectorOk = false;
      out.push(invalid('spec.selector', goLabelSelector(selector), e));
    }
    if (!Object.keys(selector.matchLabels ?? {}).length && !selector.matchExpressions?.length)
      out.push(invalid('spec.selector', goLabelSelector(selector), 'empty selector is invalid for cloneset'));
  }
  if (selectorOk) {
    const empty =
      !selector || (!Object.keys(selector.matchLabels ?? {}).length && !selector.matchExpressions?.length);
    if (!empty && !labelSelectorMatches(selector, spec.template?.metadata?.labels))
      out.push(
        invalid(
          'spec.template.metadata.labels',
          goStringMap(spec.template?.metadata?.labels),
          '`selector` does not match template `labels`',
        ),
      );
    const claims = (spec.volumeClaimTemplates ?? []).map((v) => v.metadata?.name ?? '');
    out.push(...podTemplateErrors(spec.template, 'spec.template', claims));
  }
  const restart = spec.template?.spec?.restartPolicy;
  if (restart && restart !== 'Always')
    out.push({
      type: 'Unsupported value',
      field: 'spec.template.spec.restartPolicy',
      value: restart,
      detail: 'supported values: "Always"',
    });
  if (
    spec.template?.spec?.activeDeadlineSeconds !== undefined &&
    spec.template.spec.activeDeadlineSeconds !== null
  )
    out.push(
      forbidden(
        'spec.template.spec.activeDeadlineSeconds',
        'activeDeadlineSeconds in cloneset is not Supported',
      ),
    );
  out.push(...(await scaleStrategyErrors(spec, old?.spec, cs, getPod)));
  out.push(...updateStrategyErrors(spec, replicas));
  const pds = spec.progressDeadlineSeconds;
  if (pds !== undefined && pds !== null) {
    out.push(...nonNegative('spec.progressDeadlineSeconds', pds));
    if (pds !== MAX_INT32 && pds <= (spec.minReadySeconds ?? 0))
      out.push(invalid('spec.progressDeadlineSeconds', pds, 'must be greater than minReadySeconds'));
  }
  return out;
}

const MUTABLE: (keyof CloneSetSpec)[] = [
  'replicas',
  'template',
  'scaleStrategy',
  'updateStrategy',
  'minReadySeconds',
  'lifecycle',
  'revisionHistoryLimit',
  'volumeClaimTemplates',
  'progressDeadlineSeconds',
];

function updateErrors(cs: CloneSet, old: CloneSet): FieldError[] {
  const out: FieldError[] = [];
  if (specChangedBeyond(cs.spec, old.spec, MUTABLE, 'CloneSetSpec'))
    out.push(
      forbidden(
        'spec',
        "updates to cloneset spec for fields other than 'replicas', 'template', 'lifecycle', 'scaleStrategy', 'updateStrategy', 'minReadySeconds', 'progressDeadlineSeconds', 'volumeClaimTemplates' and 'revisionHistoryLimit' are forbidden",
      ),
    );
  if (cs.spec?.updateStrategy?.type === 'InPlaceOnly') {
    const change = firstNonImageChange(old.spec?.template?.spec, cs.spec.template?.spec, IMAGE_PATH);
    if (change)
      out.push(
        forbidden('spec', `only allowed to update images in spec for InPlaceOnly, but found ${change}`),
      );
  }
  return out;
}

const decodeOld = (request: AdmissionRequest) =>
  decodeObject<CloneSet>({ ...request, object: request.oldObject }, 'CloneSet');

/**
 * The CloneSet validating webhook (`vcloneset.kb.io`): upstream's checks and messages, 422 with
 * every error aggregated; on DELETE, deletion protection (403) with gate ResourcesDeletionProtection.
 */
export function validateCloneSet(gates: FeatureGates, getPod: PodGetter): AdmissionHandler {
  return async (request) => {
    if (request.operation === 'DELETE') {
      if (!request.oldObject) return allowed();
      const old = decodeOld(request);
      if ('response' in old) return old.response;
      const denial = workloadDeletionDenial(gates, old.obj);
      return denial ? denied(403, denial) : allowed();
    }
    const decoded = decodeObject<CloneSet>(request, 'CloneSet');
    if ('response' in decoded) return decoded.response;
    const cs = decoded.obj;
    let errors: FieldError[];
    if (request.operation === 'UPDATE') {
      const old = decodeOld(request);
      if ('response' in old) return old.response;
      errors = [
        ...updateErrors(cs, old.obj),
        ...metadataErrors(cs),
        ...(await specErrors(cs, old.obj, getPod)),
      ];
    } else errors = [...metadataErrors(cs), ...(await specErrors(cs, undefined, getPod))];
    return errors.length ? denied(422, aggregate(errors)) : allowed();
  };
}
