import { claimOwnersForPolicy } from '@kruise/kube-compat/statefulset-claim-retention';
import { updateIdentity, updateStorage } from '@kruise/kube-compat/statefulset-identity';
import { parentAndOrdinal } from '@kruise/kube-compat/statefulset-ordinals';
import type { UserInfo } from '../../auth/attributes.ts';
import type { KubeObject, ResourceType } from '../../registry/types.ts';
import type { ChangeEvent } from '../../store/store.ts';
import { deepEqual } from '../../util/deep-equal.ts';
import { controllerEvent } from '../controller-events.ts';
import { BuiltinController, type ControllerDeps } from '../deps.ts';
import { claimPods } from '../workloads/adoption.ts';
import { KeyQueue } from '../workloads/key-queue.ts';
import { controllerOf } from '../workloads/pod-state.ts';
import { RevisionHistory } from '../workloads/revision-history.ts';
import { claimsOf } from './pods.ts';
import { setRef, statefulSetRevisions, truncateHistory } from './revisions.ts';
import { statefulSetStatus } from './status.ts';
import { type StatefulPodWriter, updateStatefulSet } from './update-set.ts';

const STS_USER: UserInfo = {
  username: 'system:serviceaccount:kube-system:statefulset-controller',
  groups: ['system:serviceaccounts'],
};
const SETS = 'apps/statefulsets';
const COMPONENT = 'statefulset-controller';
const errText = (err: unknown) => (err as Error)?.message ?? String(err);

/**
 * kube-controller-manager's StatefulSet controller (apps/v1): pods `<set>-<ordinal>` with stable
 * identities and claims, OrderedReady and Parallel management, RollingUpdate (partition,
 * maxUnavailable) and OnDelete, ControllerRevisions, claim retention and status.
 */
export class StatefulSetController extends BuiltinController {
  private readonly queue = new KeyQueue((key) => this.sync(key));
  private readonly unsubscribe: Array<() => void> = [];
  private readonly history: RevisionHistory;
  private readonly types: { set: ResourceType; pod: ResourceType; claim: ResourceType; event: ResourceType };

  constructor(deps: ControllerDeps) {
    super(deps);
    this.history = new RevisionHistory(deps.store, deps.objects, STS_USER);
    this.types = {
      set: deps.registry.byResource('apps', 'statefulsets')!,
      pod: deps.registry.byResource('', 'pods')!,
      claim: deps.registry.byResource('', 'persistentvolumeclaims')!,
      event: deps.registry.byResource('', 'events')!,
    };
    this.unsubscribe.push(
      deps.store.subscribe(SETS, {
        onChange: (e) => this.queue.add(`${e.namespace}/${e.obj.metadata?.name}`),
      }),
      deps.store.subscribe('/pods', { onChange: (e) => this.onPod(e) }),
    );
    for (const { obj } of deps.store.list(SETS))
      this.queue.add(`${obj.metadata?.namespace}/${obj.metadata?.name}`);
  }

  /** Stops the controller. */
  stop(): void {
    this.queue.stop();
    for (const u of this.unsubscribe) u();
  }

  /** Resolves once no set waits for a sync (for tests). */
  drained(): Promise<void> {
    return this.queue.drained();
  }

  private onPod(e: ChangeEvent): void {
    for (const pod of [e.obj, e.prev]) {
      const ref = pod && controllerOf(pod);
      if (ref?.kind === 'StatefulSet' && ref.apiVersion === 'apps/v1')
        this.queue.add(`${e.namespace}/${ref.name}`);
    }
  }

  private event(
    set: KubeObject,
    type: 'Normal' | 'Warning',
    reason: string,
    message: string,
  ): Promise<unknown> {
    return this.objects
      .create(
        this.types.event,
        set.metadata?.namespace,
        controllerEvent(set, COMPONENT, type, reason, message),
        {
          user: STS_USER,
        },
      )
      .catch(() => undefined);
  }

  private async sync(key: string): Promise<number | undefined> {
    const slash = key.indexOf('/');
    const set = this.store.get(SETS, key.slice(0, slash), key.slice(slash + 1))?.obj;
    if (!set) return undefined;
    const ownedPods = () =>
      this.store
        .list('/pods', set.metadata?.namespace)
        .map((e) => e.obj)
        .filter((p) => controllerOf(p)?.uid === set.metadata?.uid);
    const revisions = await statefulSetRevisions(this.history, set);
    const claimed = await claimPods(this.store, this.objects, STS_USER, set, setRef(set));
    const result = await updateStatefulSet(set, claimed, revisions, this.writer());
    const pods = ownedPods();
    const status = statefulSetStatus(set, pods, revisions);
    if (!deepEqual(status, set.status))
      await this.objects
        .update(
          this.types.set,
          set.metadata?.namespace,
          set.metadata?.name,
          {
            patch: (cur) =>
              cur.metadata?.uid === set.metadata?.uid
                ? { ...cur, status: { ...cur.status, ...status } }
                : cur,
          },
          { user: STS_USER, subresource: 'status' },
        )
        .catch(() => undefined);
    await truncateHistory(this.history, set, pods, revisions);
    return result.requeueAfter;
  }

  private writer(): StatefulPodWriter {
    const ns = (o: KubeObject) => o.metadata?.namespace;
    const storedClaims = (set: KubeObject, pod: KubeObject) =>
      claimsOf(set, parentAndOrdinal(pod.metadata?.name).ordinal)
        .map((c) => this.store.get('/persistentvolumeclaims', ns(set), c.metadata?.name)?.obj)
        .filter((c): c is KubeObject => !!c);
    const createClaims = async (set: KubeObject, pod: KubeObject) => {
      for (const claim of claimsOf(set, parentAndOrdinal(pod.metadata?.name).ordinal)) {
        if (this.store.get('/persistentvolumeclaims', ns(set), claim.metadata?.name)) continue;
        const owners = claimOwnersForPolicy(claim, set, pod, false, 'apps/v1');
        if (owners?.length) claim.metadata = { ...claim.metadata, ownerReferences: owners };
        try {
          await this.objects.create(this.types.claim, ns(set), claim, { user: STS_USER });
          await this.event(
            set,
            'Normal',
            'SuccessfulCreate',
            `create Claim ${claim.metadata?.name} Pod ${pod.metadata?.name} in StatefulSet ${set.metadata?.name} success`,
          );
        } catch (err) {
          await this.event(
            set,
            'Warning',
            'FailedCreate',
            `create Claim ${claim.metadata?.name} for Pod ${pod.metadata?.name} in StatefulSet ${set.metadata?.name} failed error: ${errText(err)}`,
          );
          throw err;
        }
      }
    };
    const podEvent = async (
      verb: 'create' | 'update' | 'delete',
      set: KubeObject,
      pod: KubeObject,
      err?: unknown,
    ) => {
      const title = verb[0]!.toUpperCase() + verb.slice(1);
      const what = `${verb} Pod ${pod.metadata?.name} in StatefulSet ${set.metadata?.name}`;
      if (err === undefined) await this.event(set, 'Normal', `Successful${title}`, `${what} successful`);
      else await this.event(set, 'Warning', `Failed${title}`, `${what} failed error: ${errText(err)}`);
    };
    return {
      claims: storedClaims,
      createMissingClaims: createClaims,
      createPod: async (set, pod) => {
        await createClaims(set, pod);
        try {
          await this.objects.create(this.types.pod, ns(set), pod, { user: STS_USER });
        } catch (err) {
          if ((err as { code?: number }).code === 409) return;
          await podEvent('create', set, pod, err);
          throw err;
        }
        await podEvent('create', set, pod);
      },
      deletePod: async (set, pod) => {
        try {
          await this.objects.delete(this.types.pod, ns(set), pod.metadata?.name, {
            user: STS_USER,
            preconditions: { uid: pod.metadata?.uid },
          });
        } catch (err) {
          if ((err as { code?: number }).code === 404) return;
          await podEvent('delete', set, pod, err);
          throw err;
        }
        await podEvent('delete', set, pod);
      },
      updatePod: async (set, pod, scaledDown) => {
        for (const claim of storedClaims(set, pod)) {
          const owners = claimOwnersForPolicy(claim, set, pod, scaledDown, 'apps/v1');
          if (!owners) continue;
          await this.objects.update(
            this.types.claim,
            ns(set),
            claim.metadata?.name,
            { patch: (cur) => ({ ...cur, metadata: { ...cur.metadata, ownerReferences: owners } }) },
            { user: STS_USER },
          );
        }
        if (scaledDown) return;
        try {
          await this.objects.update(
            this.types.pod,
            ns(set),
            pod.metadata?.name,
            {
              patch: (cur) => {
                const next = structuredClone(cur);
                updateIdentity(set, next, true);
                updateStorage(set, next);
                return next;
              },
            },
            { user: STS_USER },
          );
        } catch (err) {
          await podEvent('update', set, pod, err);
          throw err;
        }
        await podEvent('update', set, pod);
      },
    };
  }
}
