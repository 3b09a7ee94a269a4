import type { SidecarSet, SidecarSetSpec, SidecarSetUpdateStrategy } from '@kruise/api';
import { SIDECARSET_CUSTOM_VERSION_LABEL } from '@kruise/api';
import type { IntOrString } from '@kruise/kube-compat';
import { isHotUpgrade, isNativeSidecar, SIDECARSET_NAME_LABEL } from '../../workload/sidecarset/index.ts';
import { type FieldError, invalid, required } from '../field-errors.ts';
import { positiveIntOrPercentErrors } from '../int-or-percent.ts';
import { dashedNameErrors, objectMetaErrors } from '../object-meta-validation.ts';
import { priorityStrategyError } from '../validation.ts';
import { sidecarContainersErrors } from './containers.ts';
import { goInjectRevision, updateStrategyText } from './go-print.ts';
import type { SidecarSetAdmissionLookups } from './lookups.ts';
import { sidecarSetSelectorErrors } from './selectors.ts';
import { patchMetadataWhitelistError } from './whitelist.ts';

/** Upstream's validateSidecarSetSpec and the object-metadata checks before it, with its paths and words. */

/** validateSidecarSetName: alphanumerics and '-', at most 63 characters. */
export const sidecarSetNameErrors = dashedNameErrors('sidecarset name');

/** `partition` counts as set when it is a string or a non-zero number (upstream's intStrIsSet). */
const intStrIsSet = (v: IntOrString | undefined | null) =>
  typeof v === 'string' || (typeof v === 'number' && v !== 0);

/** UpdateScatterStrategy's FieldsValidation: a key on every term, no term twice. */
function scatterStrategyError(terms: { key?: string; value?: string }[]): string | undefined {
  const seen = new Set<string>();
  for (const term of terms) {
    if (!term.key) return 'key should not be empty';
    const id = `${term.key}:${term.value ?? ''}`;
    if (seen.has(id)) return `duplicated key=${term.key} value=${term.value ?? ''}`;
    seen.add(id);
  }
  return undefined;
}

function updateStrategyErrors(s: SidecarSetUpdateStrategy): FieldError[] {
  if (s.type !== 'RollingUpdate') return [];
  const field = 'spec.updateStrategy';
  const out: FieldError[] = [];
  if (intStrIsSet(s.partition) && s.selector)
    out.push(
      invalid('updateStrategy', updateStrategyText(s), 'Partition and Selector cannot be used together'),
    );
  if (s.selector) out.push(...sidecarSetSelectorErrors(s.selector, `${field}.selector`));
  if (s.partition !== undefined && s.partition !== null)
    out.push(...positiveIntOrPercentErrors(s.partition, `${field}.partition`));
  if (s.maxUnavailable !== undefined && s.maxUnavailable !== null)
    out.push(...positiveIntOrPercentErrors(s.maxUnavailable, `${field}.maxUnavailable`));
  const priority = priorityStrategyError(s.priorityStrategy);
  if (priority) out.push(required(`${field}.priorityStrategy`, priority));
  const scatter = scatterStrategyError(s.scatterStrategy ?? []);
  if (scatter) out.push(required(`${field}.scatterStrategy`, scatter));
  return out;
}

/** The NotFound error of the API for a missing revision, as upstream words it. */
const revisionNotFound = (set: string) => `ControllerRevision.apps "${set}" not found`;

async function injectionStrategyErrors(
  set: SidecarSet,
  lookups: SidecarSetAdmissionLookups,
): Promise<FieldError[]> {
  const revision = set.spec?.injectionStrategy?.revision;
  if (!revision) return [];
  const out: FieldError[] = [];
  const hasName = revision.revisionName !== undefined && revision.revisionName !== null;
  const hasCustom = revision.customVersion !== undefined && revision.customVersion !== null;
  if (!hasName && !hasCustom)
    out.push(
      invalid(
        'revision',
        goInjectRevision(revision),
        'revisionName and customVersion cannot be empty simultaneously',
      ),
    );
  else {
    let err: string | undefined;
    try {
      if (hasName) await lookups.revision(revision.revisionName!);
      else {
        const found = await lookups.revisions({
          [SIDECARSET_NAME_LABEL]: set.metadata?.name ?? '',
          [SIDECARSET_CUSTOM_VERSION_LABEL]: revision.customVersion!,
        });
        if (!found.length) err = revisionNotFound(set.metadata?.name ?? '');
      }
    } catch (e) {
      err = (e as Error).message;
    }
    if (err !== undefined)
      out.push(invalid('revision', null, `Cannot find specific ControllerRevision, err: ${err}`));
  }
  const policy = revision.policy ?? '';
  if (policy !== '' && policy !== 'Always' && policy !== 'Partial')
    out.push(
      invalid(
        'revision.policy',
        goInjectRevision(revision),
        `Invalid policy ${policy}, supported: [Always, Partial]`,
      ),
    );
  return out;
}

function patchPodMetadataErrors(spec: SidecarSetSpec, whitelistError: string | undefined): FieldError[] {
  const field = 'spec.patchPodMetadata';
  const out: FieldError[] = [];
  if (whitelistError) out.push(required(field, whitelistError));
  const keys = new Set<string>();
  for (const patch of spec.patchPodMetadata ?? []) {
    const annotations = patch.annotations ?? {};
    if (!Object.keys(annotations).length) out.push(required(field, 'no annotations defined for SidecarSet'));
    else
      out.push(
        ...objectMetaErrors({ name: 'fake-name', annotations }, () => [], false).map((e) => ({
          ...e,
          field: e.field.replace(/^metadata\./, 'patchPodMetadata.'),
        })),
      );
    if (!patch.patchPolicy) out.push(required(field, 'no patchPolicy defined for patchPodMetadata'));
    for (const k of Object.keys(annotations)) {
      if (keys.has(k)) out.push(required(field, `patch annotation[${k}] already exist`));
      else keys.add(k);
    }
  }
  return out;
}

/** What the spec checks need besides the object: the lookups and gate SidecarSetPatchPodMetadataDefaultsAllowed. */
export interface SpecContext {
  lookups: SidecarSetAdmissionLookups;
  patchMetadataDefaultsAllowed: boolean;
}

/** Every error of a SidecarSet's metadata and spec, in upstream's order. */
export async function sidecarSetErrors(set: SidecarSet, ctx: SpecContext): Promise<FieldError[]> {
  const out = objectMetaErrors(set.metadata, sidecarSetNameErrors, false);
  const spec = set.spec ?? ({} as SidecarSetSpec);
  // Upstream refuses any native-sidecar init container under RollingUpdate; here a cold one is
  // upgraded in place (see docs/adr/0054), and only a hot one, which nothing can roll, is refused.
  for (const c of spec.initContainers ?? [])
    if (
      isNativeSidecar(c) &&
      isHotUpgrade(c) &&
      (spec.updateStrategy?.type ?? 'RollingUpdate') === 'RollingUpdate'
    )
      out.push(
        required('spec.updateStrategy', 'The initContainer in-place upgrade is not currently supported.'),
      );
  if (!spec.selector) out.push(required('spec.selector', 'no selector defined for SidecarSet'));
  else out.push(...sidecarSetSelectorErrors(spec.selector, 'spec.selector'));
  if (spec.namespaceSelector)
    out.push(...sidecarSetSelectorErrors(spec.namespaceSelector, 'spec.namespaceSelector'));
  out.push(...(await injectionStrategyErrors(set, ctx.lookups)));
  out.push(...updateStrategyErrors(spec.updateStrategy ?? {}));
  const initContainers = spec.initContainers ?? [];
  const containers = spec.containers ?? [];
  if (!initContainers.length && !containers.length)
    out.push(required('spec', 'no initContainer or container defined for SidecarSet'));
  else out.push(...sidecarContainersErrors(initContainers, containers, spec.volumes ?? []));
  let whitelistError: string | undefined;
  if (spec.patchPodMetadata?.length) {
    try {
      whitelistError = patchMetadataWhitelistError(
        set,
        await ctx.lookups.configuration(),
        ctx.patchMetadataDefaultsAllowed,
      );
    } catch (e) {
      whitelistError = (e as Error).message;
    }
  }
  out.push(...patchPodMetadataErrors(spec, whitelistError));
  return out;
}
