import { setTimeout as sleep } from 'node:timers/promises';
import type { ContainerRecreateRequest } from '@kruise/api';
import { KruiseResources } from '@kruise/api/kinds';
import { labelSelectorString } from '@kruise/kube-compat/label-selector';
import type { ResourceRef } from '@kruise/kube-compat/resource-ref';
import { kubeTime } from '@kruise/kube-compat/time';
import type { KubeClient, KubeObject } from '@kruise/runtime/kube/client';
import { Resources } from '@kruise/runtime/kube/resources';
import { crrOutcome } from '../crr/defaults.ts';
import type { PodState } from './budget.ts';
import { availabilityLimits } from './limits.ts';
import { nextBatch, restartOrder } from './plan.ts';
import { type CrrTiming, markPodRestarted, startPodRestart } from './pod-restart.ts';
import { pubAdmission } from './pub-take.ts';
import {
  newRestartId,
  POD_RESTARTED_ANNOTATION,
  type PodRestartRecord,
  RESTART_ID_LABEL,
  type RestartRecord,
  readRecord,
  WORKLOAD_RESTART_ANNOTATION,
} from './records.ts';
import { ownedActivePods, podAvailable, type RestartableKind } from './workload.ts';

/** The calls a restart makes. */
export type RestartClient = Pick<KubeClient, 'get' | 'listAll' | 'create' | 'mergePatch' | 'updateStatus'>;

/** One in-place restart of a workload's pods. */
export interface RestartOptions {
  kind: RestartableKind;
  resource: ResourceRef;
  /** The workload as kubectl names it in messages: `cloneset.apps.kruise.io/web`. */
  what: string;
  namespace: string;
  name: string;
  /** Recorded on the workload and the pods. */
  reason: string;
  /** The strategy of every request (kruise-tools' defaults where absent). */
  timing?: CrrTiming;
  /** Progress lines go here. */
  out: (line: string) => void;
  /** How often to look at the pods and requests (default 1 s). */
  pollMs?: number;
  /** Give up after this long (default: never). */
  timeoutMs?: number;
  now?: () => Date;
  signal?: AbortSignal;
}

/** Why a restart stopped short: a request failed, the time ran out, the workload cannot be restarted. */
export class RestartError extends Error {}

/**
 * Restarts every container of every pod of a workload in place, with one ContainerRecreateRequest
 * per pod, never more pods down at once than the workload's maxUnavailable, the
 * PodDisruptionBudgets that select its pods and the PodUnavailableBudgets that cover them allow
 * (pods already not Ready count). Before a pod covered by a PodUnavailableBudget starts, one
 * disruption is taken out of that budget for it, as kruise-manager's webhook does for an in-place
 * update, so other disruptions see the restart; a refusal holds the pod back. A pod is done
 * when its request completed with every container Succeeded and the pod is available again; it
 * is then annotated, and a re-run (of a restart not yet completed on the workload) skips it.
 * Pods created after the restart began are new already and are left alone.
 * @throws RestartError when a request fails (its message) or the timeout passes.
 */
export async function restartInPlace(client: RestartClient, o: RestartOptions): Promise<RestartRecord> {
  const now = o.now ?? (() => new Date());
  const deadline = o.timeoutMs ? Date.now() + o.timeoutMs : Number.POSITIVE_INFINITY;
  const what = o.what;
  let workload = await client.get(o.resource, o.namespace, o.name);
  const maxUnavailable = o.kind.maxUnavailable(workload);
  if (maxUnavailable < 1)
    throw new RestartError(
      `${what} allows no unavailable pod (maxUnavailable resolves to 0): an in-place restart cannot keep it; use "rollout restart" to recreate pods with maxSurge`,
    );
  const previous = readRecord<RestartRecord>(workload.metadata?.annotations, WORKLOAD_RESTART_ANNOTATION);
  let record: RestartRecord;
  if (previous && !previous.completedAt) {
    record = previous;
    o.out(`resuming in-place restart ${record.id} of ${what} (started ${record.startedAt})`);
  } else {
    record = { id: newRestartId(now()), reason: o.reason, startedAt: kubeTime(now()) };
    workload = await writeRecord(client, o, record);
  }
  let total: number | undefined;
  let waitingFor: string | undefined;
  const admission = pubAdmission(client, o.namespace, { now, out: o.out });
  for (;;) {
    workload = await client.get(o.resource, o.namespace, o.name);
    const pods = ownedActivePods(
      workload,
      (
        await client.listAll(Resources.Pod, {
          namespace: o.namespace,
          labelSelector: labelSelectorString(o.kind.selector(workload)),
        })
      ).items,
    );
    const t = now().getTime();
    const done = pods.filter(
      (p) =>
        readRecord<PodRestartRecord>(p.metadata?.annotations, POD_RESTARTED_ANNOTATION)?.id === record.id,
    );
    // pods created after the restart began run new containers already (creation times are whole
    // seconds: a pod of the restart's first second is restarted, which is harmless)
    const todo = pods.filter(
      (p) =>
        !done.includes(p) && Date.parse(p.metadata?.creationTimestamp ?? '') <= Date.parse(record.startedAt),
    );
    if (total === undefined) {
      total = done.length + todo.length;
      o.out(
        `restarting ${total} pods of ${what} in place (restart ${record.id}), at most ${maxUnavailable} at a time`,
      );
    }
    const requests = await listRequests(client, o.namespace, record.id);
    const inFlight = new Set<string>();
    let finished = 0;
    for (const pod of todo) {
      const crr = requests.get(pod.metadata!.name);
      if (!crr) continue;
      const outcome = crrOutcome(crr);
      if (outcome.done && !outcome.ok)
        throw new RestartError(
          `ContainerRecreateRequest ${o.namespace}/${crr.metadata?.name} for pod ${pod.metadata!.name} failed: ${outcome.message}`,
        );
      if (outcome.done && podAvailable(pod, o.kind.minReadySeconds(workload), t)) {
        await markPodRestarted(client, pod, record, crr.metadata!.name!, now());
        finished++;
        o.out(`pod/${pod.metadata!.name} restarted in place (${done.length + finished}/${total})`);
      } else inFlight.add(pod.metadata!.name);
    }
    const pending = new Set(todo.map((p) => p.metadata!.name as string).filter((n) => !requests.has(n)));
    if (!pending.size && !inFlight.size) break;
    if (Date.now() > deadline)
      throw new RestartError(
        `timed out waiting for the in-place restart of ${what}: ${done.length + finished} of ${total} pods restarted; run the command again to resume`,
      );
    if (finished) continue; // look again before starting more: the pods just marked are healthy
    const minReady = o.kind.minReadySeconds(workload);
    const states: PodState[] = pods.map((p) => ({
      name: p.metadata!.name,
      available: podAvailable(p, minReady, t),
    }));
    const replicas = o.kind.replicas(workload);
    const { limits, others, budgetOf } = await availabilityLimits(client, o.namespace, pods, replicas);
    limits.unshift({
      source: `maxUnavailable ${maxUnavailable} of ${what}`,
      covers: new Set(states.map((s) => s.name)),
      minAvailable: replicas - maxUnavailable,
    });
    const byName = new Map(pods.map((p) => [p.metadata!.name as string, p]));
    const plan = nextBatch({
      pods: new Map([...states, ...others].map((s) => [s.name, s])),
      pending: restartOrder(states.filter((s) => pending.has(s.name))),
      inFlight,
      maxUnavailable,
      limits,
    });
    let started = 0;
    let refusedBy: string | undefined;
    for (const name of plan.start) {
      const admitted = await admission.admit(byName.get(name)!, budgetOf.get(name));
      if (!admitted.start) {
        refusedBy ??= admitted.blockedBy;
        continue;
      }
      const crr = await startPodRestart(client, byName.get(name)!, record, o.timing);
      started++;
      o.out(`pod/${name} restarting in place (containerrecreaterequest/${crr.metadata?.name})`);
    }
    const blocked = !started && !inFlight.size ? (refusedBy ?? plan.blockedBy) : undefined;
    if (blocked && blocked !== waitingFor) o.out(`waiting: ${blocked} allows no more unavailable pods`);
    waitingFor = blocked;
    await sleep(o.pollMs ?? 1000, undefined, o.signal ? { signal: o.signal } : undefined);
  }
  record = { ...record, completedAt: kubeTime(now()) };
  await writeRecord(client, o, record);
  o.out(`${what} restarted in place`);
  return record;
}

/** Writes the restart record on the workload. */
function writeRecord(client: RestartClient, o: RestartOptions, record: RestartRecord): Promise<KubeObject> {
  return client.mergePatch(o.resource, o.namespace, o.name, {
    metadata: { annotations: { [WORKLOAD_RESTART_ANNOTATION]: JSON.stringify(record) } },
  });
}

/** The requests of one restart, by pod name. */
async function listRequests(
  client: RestartClient,
  namespace: string,
  id: string,
): Promise<Map<string, ContainerRecreateRequest & KubeObject>> {
  const list = await client.listAll<ContainerRecreateRequest & KubeObject>(
    KruiseResources.ContainerRecreateRequest,
    {
      namespace,
      labelSelector: `${RESTART_ID_LABEL}=${id}`,
    },
  );
  return new Map(list.items.map((c) => [c.spec!.podName, c]));
}
