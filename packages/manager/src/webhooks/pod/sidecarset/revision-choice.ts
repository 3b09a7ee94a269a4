import {
  SIDECARSET_CUSTOM_VERSION_LABEL,
  type SidecarSet,
  type SidecarSetInjectionStrategy,
} from '@kruise/api';
import { labelSelectorMatches } from '@kruise/kube-compat';
import { sortRevisions } from '@kruise/kube-compat/controller-revision';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { restoreSidecarSetRevision } from '../../../workload/sidecarset/revision-data.ts';
import type { SidecarSetLookups } from './lookups.ts';

type SidecarSetInjectRevision = NonNullable<SidecarSetInjectionStrategy['revision']>;

/** An API NotFound error's message, as a Go client formats it. */
const notFound = (resource: string, name: string) => new Error(`${resource} "${name}" not found`);

/** The pinned revision's SidecarSet (upstream's getSpecificHistorySidecarSet). */
async function pinnedSidecarSet(
  sidecarSet: SidecarSet,
  pin: SidecarSetInjectRevision,
  lookups: SidecarSetLookups,
): Promise<SidecarSet> {
  const name = sidecarSet.metadata?.name ?? '';
  if (pin.revisionName !== undefined) {
    if (!pin.revisionName) throw new Error('resource name may not be empty');
    const revision = await lookups.revision(pin.revisionName);
    if (!revision) throw notFound('controllerrevisions.apps', pin.revisionName);
    return restoreSidecarSetRevision(sidecarSet, revision);
  }
  const custom = pin.customVersion!;
  const matching = (await lookups.revisions(name)).filter(
    (r) => r.metadata?.labels?.[SIDECARSET_CUSTOM_VERSION_LABEL] === custom,
  );
  if (matching.length === 0) throw notFound('ControllerRevision.apps', name);
  return restoreSidecarSetRevision(sidecarSet, sortRevisions(matching).at(-1)!);
}

/** util.ParsePercentageAsFloat64. */
function percentage(s: string): number {
  if (!s.endsWith('%')) throw new Error('invalid type: string is not a percentage');
  const v = s.slice(0, -1);
  if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(v))
    throw new Error(`strconv.ParseFloat: parsing ${JSON.stringify(v)}: invalid syntax`);
  return Number(v) / 100;
}

/**
 * The SidecarSet a new pod is injected with (upstream's getSuitableRevisionSidecarSet on CREATE):
 * the latest, unless `injectionStrategy.revision` pins one (by `revisionName`, or the newest
 * revision labelled with `customVersion`). A pin applies when `updateStrategy.paused` or policy
 * Always; with Partial, pods outside `updateStrategy.selector` get it, the others get it with the
 * probability of a percentage `partition` (an integer partition: the latest).
 * @throws Error when the pinned revision is not found (upstream's NotFound message) or the partition is unreadable.
 */
export async function chooseRevision(
  sidecarSet: SidecarSet,
  pod: Pod,
  lookups: SidecarSetLookups,
  random: () => number,
): Promise<SidecarSet> {
  const pin = sidecarSet.spec?.injectionStrategy?.revision;
  if (!pin || (pin.revisionName === undefined && pin.customVersion === undefined)) return sidecarSet;
  const pinned = await pinnedSidecarSet(sidecarSet, pin, lookups);
  const update = sidecarSet.spec?.updateStrategy;
  if (update?.paused || pin.policy !== 'Partial') return pinned;
  if (update?.selector && !labelSelectorMatches(update.selector, pod.metadata?.labels)) return pinned;
  const partition = update?.partition;
  if (partition === undefined || typeof partition === 'number') return sidecarSet;
  return random() <= percentage(partition) ? pinned : sidecarSet;
}
