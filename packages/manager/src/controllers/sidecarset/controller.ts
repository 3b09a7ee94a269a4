import { KruiseResources, type SidecarSet } from '@kruise/api';
import { labelSelectorIsEmpty } from '@kruise/kube-compat';
import {
  type ControllerBuilder,
  type Informer,
  type KubeObject,
  type Manager,
  type Request,
  Resources,
  ResourceVersionExpectations,
  UpdateExpectations,
} from '@kruise/runtime';
import type { ControllerRevision } from 'kubernetes-types/apps/v1.js';
import type { Namespace, Pod } from 'kubernetes-types/core/v1.js';
import { trimmedNamespaces, trimmedPods } from '../../informers.ts';
import { changed, requestOf, workloadChanged } from '../../workload/owner-events.ts';
import { isPodReady } from '../../workload/pod-state.ts';
import { pubUpdateGuard } from '../../workload/pub/update-guard.ts';
import {
  isInjectedWith,
  podSidecarSetHash,
  SIDECARSET_HASH_ANNOTATION,
  SIDECARSET_INJECTED_LIST_ANNOTATION,
  SIDECARSET_NAME_LABEL,
  sidecarSetMatchesPod,
} from '../../workload/sidecarset/index.ts';
import type { AddOptions } from '../add-options.ts';
import type { SidecarUpdateExpectations } from './context.ts';
import { LateSelection } from './late-selection.ts';
import { isPodConsistentWithSidecarSet, isPodStateConsistent } from './pod-state.ts';
import { SidecarSetReconciler } from './reconcile.ts';
import { SIDECARSET_API_VERSION } from './revisions.ts';

/** The controller's name (metrics, logs, expectations). */
export const NAME = 'sidecarset';
const INJECTED = 'sidecarSetInjected';
const LABEL_PAIR = 'labelPair';
const SELECTOR_PAIR = 'sidecarSetSelectorPair';
const REVISION_OWNER = 'sidecarSetRevision';
/** Index value of SidecarSets whose selector has no matchLabels (every pod may match). */
const ANY = '*';
/** Delay before a pod whose sidecars became (in)consistent queues its SidecarSets (upstream: 5 s). */
const CONSISTENCY_DELAY_MS = 5000;

const injectedList = (p: KubeObject): string[] =>
  (p.metadata?.annotations?.[SIDECARSET_INJECTED_LIST_ANNOTATION] ?? '').split(',').filter(Boolean);
const pairs = (labels: Record<string, string> | undefined) =>
  Object.entries(labels ?? {}).map(([k, v]) => `${k}=${v}`);
const hashOf = (s: SidecarSet) => s.metadata?.annotations?.[SIDECARSET_HASH_ANNOTATION] ?? '';

/**
 * Adds the SidecarSet controller (upstream's sidecarset-controller): SidecarSets queue themselves
 * (not for their own status writes); a pod queues the SidecarSets in its injected list when it is
 * created, deleted, changes readiness or sidecar consistency (after 5 s), or changes labels under a
 * canary selector; a pod a SidecarSet selects without having been injected queues it too (beyond
 * upstream: its sidecars are missing).
 */
export function add(manager: Manager, { flags, tuning }: AddOptions): ControllerBuilder {
  const f = manager.informers;
  const sidecarSets = f.informerFor<SidecarSet & KubeObject>({ resource: KruiseResources.SidecarSet });
  const pods = trimmedPods(manager) as unknown as Informer<KubeObject>;
  const revisions = f.informerFor<KubeObject>({ resource: Resources.ControllerRevision });
  const namespaces = trimmedNamespaces(manager) as unknown as Informer<KubeObject>;
  const kruiseNamespace = flags.webhookServiceNamespace;
  pods.addIndex(INJECTED, injectedList);
  pods.addIndex(LABEL_PAIR, (p) => pairs(p.metadata?.labels));
  sidecarSets.addIndex(SELECTOR_PAIR, (s) => {
    const own = pairs(s.spec?.selector?.matchLabels);
    return own.length ? own : [ANY];
  });
  revisions.addIndex(REVISION_OWNER, (r) => {
    const owner = r.metadata?.labels?.[SIDECARSET_NAME_LABEL];
    return owner !== undefined && r.metadata?.namespace === kruiseNamespace ? [owner] : [];
  });
  const expectations = manager.expectationsOptions(NAME, flags.expectationTimeoutMs);
  const updates = new UpdateExpectations<{ metadata?: Pod['metadata']; hash: string }>(
    expectations,
    (o) => o.hash,
  );
  const updateExpectations: SidecarUpdateExpectations = {
    expectUpdated: (s, hash, pod) => updates.expectUpdated(s, hash, { metadata: pod.metadata, hash }),
    observeUpdated: (s, hash, pod) =>
      updates.observeUpdated(s, hash, { metadata: pod.metadata, hash: podSidecarSetHash(pod, s) }),
    forget: (s, hash, pod) => updates.observeUpdated(s, hash, { metadata: pod.metadata, hash }),
    check: (s, hash) => updates.check(s, hash),
    delete: (s) => updates.delete(s),
  };
  const rv = new ResourceVersionExpectations(expectations);
  const recorder = manager.eventRecorder('sidecarset-controller');
  const late = new LateSelection();
  const namespaceLabels = (ns: string) =>
    (namespaces.get(ns) as Namespace | undefined)?.metadata?.labels ?? (namespaces.get(ns) ? {} : undefined);
  /** Pods the SidecarSet's selector may pick: those with its rarest matchLabels pair, else all. */
  const selectablePods = (s: SidecarSet): Pod[] => {
    if (!s.spec?.selector || labelSelectorIsEmpty(s.spec.selector)) return [];
    const own = pairs(s.spec.selector.matchLabels);
    if (!own.length) return pods.list() as unknown as Pod[];
    let best: KubeObject[] | undefined;
    for (const pair of own) {
      const list = pods.byIndex(LABEL_PAIR, pair);
      if (!best || list.length < best.length) best = list;
    }
    return (best ?? []) as unknown as Pod[];
  };
  const reconciler = new SidecarSetReconciler(
    {
      client: manager.client,
      event: (obj, type, reason, message) =>
        recorder.event(
          { apiVersion: SIDECARSET_API_VERSION, kind: 'SidecarSet', ...obj } as KubeObject,
          type,
          reason,
          message,
        ),
      kruiseNamespace,
      updateExpectations,
      resourceVersionExpectations: rv,
      pubUpdateGuard: pubUpdateGuard(manager, flags.featureGates),
      now: Date.now,
      log: manager.log.child({ controller: NAME }),
    },
    {
      sidecarSet: (name) => sidecarSets.get(name) as SidecarSet | undefined,
      injectedPods: (name) => pods.byIndex(INJECTED, name) as unknown as Pod[],
      selectablePods,
      namespaceLabels,
      selectedLate: (s, p) => late.selectedLate(s, p),
      revisions: (name) => revisions.byIndex(REVISION_OWNER, name) as unknown as ControllerRevision[],
    },
  );
  const builder = manager.newController({
    name: NAME,
    workers: flags.sidecarSetWorkers,
    reconcile: (ctx, req) => {
      tuning.onReconcile?.(NAME, req.name);
      return reconciler.reconcile(req.name, ctx.log);
    },
  });
  const queue = builder.controller.queue;
  /** The SidecarSets in the pod's injected list that exist and whose sidecars it has. */
  const injectedSets = (pod: KubeObject): SidecarSet[] =>
    injectedList(pod)
      .map((n) => sidecarSets.get(n) as SidecarSet | undefined)
      .filter((s): s is SidecarSet => !!s && isPodConsistentWithSidecarSet(pod as Pod, s));
  /**
   * The SidecarSets that select the pod but are not in its injected list: its sidecars are missing,
   * or were until it went away.
   */
  const missingSets = (pod: KubeObject): Request[] => {
    const seen = new Set<KubeObject>();
    for (const key of [...pairs(pod.metadata?.labels), ANY])
      for (const s of sidecarSets.byIndex(SELECTOR_PAIR, key)) seen.add(s);
    return [...seen]
      .filter(
        (s) =>
          !isInjectedWith(pod, s.metadata?.name ?? '') &&
          sidecarSetMatchesPod(s as SidecarSet, pod as Pod, namespaceLabels),
      )
      .map(requestOf);
  };
  const forgetPod = (pod: KubeObject): Request[] => {
    rv.delete(pod);
    return injectedList(pod).flatMap((n) => {
      const s = sidecarSets.get(n) as SidecarSet | undefined;
      if (!s) return [];
      updateExpectations.forget(n, hashOf(s), pod as Pod);
      return [requestOf(s as KubeObject)];
    });
  };
  return builder
    .watches(sidecarSets, {
      add: requestOf,
      update: (o, s) => (workloadChanged(o, s) ? requestOf(s) : undefined),
      delete: requestOf,
    })
    .watches(pods, {
      add: (p) => [
        ...injectedSets(p).map((s) => requestOf(s as KubeObject)),
        ...(p.metadata?.deletionTimestamp ? [] : missingSets(p)),
      ],
      update: (o, p) => {
        if (o.metadata?.resourceVersion === p.metadata?.resourceVersion) return undefined;
        const now: Request[] = [];
        for (const s of injectedSets(p)) {
          if (s.spec?.updateStrategy?.type === 'NotUpdate') continue;
          const req = requestOf(s as KubeObject);
          if (!o.metadata?.deletionTimestamp && p.metadata?.deletionTimestamp) now.push(req);
          else if (o.metadata?.deletionTimestamp) continue;
          else if (isPodReady(o as Pod) !== isPodReady(p as Pod)) now.push(req);
          else if (isPodStateConsistent(s, o as Pod) !== isPodStateConsistent(s, p as Pod))
            queue.addAfter(s.metadata?.name ?? '', CONSISTENCY_DELAY_MS);
          else if (s.spec?.updateStrategy?.selector && changed(o.metadata?.labels, p.metadata?.labels))
            now.push(req);
        }
        if (changed(o.metadata?.labels, p.metadata?.labels)) {
          const before = new Set(missingSets(o).map((r) => r.name));
          const after = missingSets(p);
          // Selected only now: injection (at creation) was rightly not done.
          for (const r of after) if (!before.has(r.name)) late.podSelected(p.metadata?.uid, r.name);
          now.push(...missingSets(o), ...after);
        } else if (!o.metadata?.deletionTimestamp && p.metadata?.deletionTimestamp)
          now.push(...missingSets(p));
        return now;
      },
      delete: (p) => {
        late.forgetPod(p.metadata?.uid);
        return [...forgetPod(p), ...missingSets(p)];
      },
    })
    .watches(namespaces, {
      // A namespace relabelled: pods already in it came into namespaceSelectors late.
      update: (o, n) => {
        if (!changed(o.metadata?.labels, n.metadata?.labels)) return undefined;
        late.namespaceRelabelled(n.metadata?.name, Date.now());
        return sidecarSets
          .list()
          .filter((s) => s.spec?.namespaceSelector)
          .map(requestOf);
      },
      delete: (n) => {
        late.forgetNamespace(n.metadata?.name);
        return undefined;
      },
    });
}
