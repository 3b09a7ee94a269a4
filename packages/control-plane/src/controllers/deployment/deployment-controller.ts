import { labelSelectorIsEmpty, labelSelectorMatches } from '@kruise/kube-compat/label-selector';
import type { UserInfo } from '../../auth/attributes.ts';
import type { KubeObject, ResourceType } from '../../registry/types.ts';
import type { ChangeEvent } from '../../store/store.ts';
import { EventRecorder } from '../controller-events.ts';
import { claimObjects, controllerOf } from '../controller-ref.ts';
import { BuiltinController, type ControllerDeps } from '../deps.ts';
import { KeyQueue, type SyncResult } from '../work-queue.ts';
import { conditionOf, hasProgressDeadline, newCondition, Reasons, setCondition } from './conditions.ts';
import { DeploymentRun, type RunDeps } from './deployment-run.ts';
import { isScalingEvent, rolloutRecreate, rolloutRolling, syncScale } from './strategies.ts';

const DEPLOYMENT_USER: UserInfo = {
  username: 'system:serviceaccount:kube-system:deployment-controller',
  groups: ['system:serviceaccounts', 'system:serviceaccounts:kube-system', 'system:authenticated'],
};
const DEPLOYMENT_RESOURCE = 'apps/deployments';
const RS_RESOURCE = 'apps/replicasets';
const POD_RESOURCE = '/pods';

const keyOf = (obj: KubeObject) => `${obj.metadata?.namespace}/${obj.metadata?.name}`;

/**
 * kube-controller-manager's Deployment controller: ReplicaSets per pod template (named and
 * labelled by pod-template-hash, revisions in annotations), RollingUpdate paced by maxSurge and
 * maxUnavailable, Recreate, proportional scaling, pause, revisionHistoryLimit, and the status
 * with the Available, Progressing (progressDeadlineSeconds) and ReplicaFailure conditions.
 */
export class DeploymentController extends BuiltinController {
  private readonly queue = new KeyQueue((key) => this.sync(key));
  private readonly run: RunDeps;
  private readonly rsType: ResourceType;
  private readonly unsubscribe: Array<() => void>;

  constructor(deps: ControllerDeps) {
    super(deps);
    this.rsType = deps.registry.byResource('apps', 'replicasets')!;
    const events = new EventRecorder(
      deps.objects,
      deps.registry.byResource('', 'events')!,
      'deployment-controller',
      DEPLOYMENT_USER,
    );
    this.run = {
      objects: deps.objects,
      deploymentType: deps.registry.byResource('apps', 'deployments')!,
      rsType: this.rsType,
      events,
      user: DEPLOYMENT_USER,
    };
    this.unsubscribe = [
      deps.store.subscribe(DEPLOYMENT_RESOURCE, {
        onChange: (e) => {
          if (e.type === 'DELETED') events.forget(e.obj.metadata?.uid);
          this.queue.add(keyOf(e.obj));
        },
      }),
      deps.store.subscribe(RS_RESOURCE, { onChange: (e) => this.onReplicaSet(e) }),
      deps.store.subscribe(POD_RESOURCE, { onChange: (e) => this.onPod(e) }),
    ];
    for (const { obj } of deps.store.list(DEPLOYMENT_RESOURCE)) this.queue.add(keyOf(obj));
  }

  /** Stops syncing. */
  stop(): void {
    for (const u of this.unsubscribe) u();
    this.queue.stop();
  }

  /** The Deployment key a controller ref points at, when that Deployment exists with that uid. */
  private ownerKey(obj: KubeObject | undefined): string | undefined {
    const ref = obj ? controllerOf(obj) : undefined;
    if (ref?.kind !== 'Deployment') return undefined;
    const ns = obj!.metadata?.namespace;
    const d = this.store.get(DEPLOYMENT_RESOURCE, ns, String(ref.name));
    return d?.obj.metadata?.uid === ref.uid ? `${ns}/${ref.name}` : undefined;
  }

  private onReplicaSet(e: ChangeEvent): void {
    const owner = this.ownerKey(e.obj);
    const prevOwner = this.ownerKey(e.prev);
    if (prevOwner && prevOwner !== owner) this.queue.add(prevOwner);
    if (owner) this.queue.add(owner);
    else if (!controllerOf(e.obj) && e.type !== 'DELETED')
      for (const { obj } of this.store.list(DEPLOYMENT_RESOURCE, e.namespace))
        if (labelSelectorMatches(obj.spec?.selector, e.obj.metadata?.labels)) this.queue.add(keyOf(obj));
  }

  /** A Recreate rollout waits for old pods to go: their deletion brings it back. */
  private onPod(e: ChangeEvent): void {
    const relevant =
      e.type === 'DELETED' ||
      (e.obj.metadata?.deletionTimestamp && !e.prev?.metadata?.deletionTimestamp) ||
      (e.type === 'MODIFIED' && e.obj.status?.phase !== e.prev?.status?.phase);
    if (!relevant) return;
    const ref = controllerOf(e.obj);
    if (ref?.kind !== 'ReplicaSet') return;
    const rs = this.store.get(RS_RESOURCE, e.namespace, String(ref.name))?.obj;
    const owner = this.ownerKey(rs);
    if (!owner) return;
    const d = this.store.get(DEPLOYMENT_RESOURCE, e.namespace, owner.split('/')[1]!)?.obj;
    if (d?.spec?.strategy?.type === 'Recreate') this.queue.add(owner);
  }

  /** oldPodsRunning's pod half: a pod of another ReplicaSet than the new one that has not finished. */
  private oldPodsRunning(rsList: KubeObject[], newRS: KubeObject | undefined, ns: string): boolean {
    const uids = new Set(rsList.filter((rs) => rs !== newRS).map((rs) => rs.metadata?.uid));
    return this.store.list(POD_RESOURCE, ns).some(({ obj }) => {
      const phase = obj.status?.phase;
      return uids.has(controllerOf(obj)?.uid) && phase !== 'Failed' && phase !== 'Succeeded';
    });
  }

  private async sync(key: string): Promise<SyncResult> {
    const [ns, name] = key.split('/') as [string, string];
    const stored = this.store.get(DEPLOYMENT_RESOURCE, ns, name)?.obj;
    if (!stored) return;
    const d = structuredClone(stored);
    if (labelSelectorIsEmpty(d.spec?.selector)) {
      this.run.events.record(
        d,
        'Warning',
        'SelectingAll',
        'This deployment is selecting all pods. A non-empty selector is required.',
      );
      if (Number(d.status?.observedGeneration ?? 0) < Number(d.metadata?.generation ?? 0))
        await new DeploymentRun(this.run, d, []).updateStatus({
          ...d.status,
          observedGeneration: d.metadata?.generation,
        });
      return;
    }
    const candidates = this.store.list(RS_RESOURCE, ns).map((e) => e.obj);
    const rsList = await claimObjects(this.objects, this.rsType, d, candidates, DEPLOYMENT_USER);
    const run = new DeploymentRun(this.run, d, rsList);
    if (d.metadata?.deletionTimestamp) {
      const { newRS, oldRSs } = await run.replicaSets(false);
      await run.syncStatus([...oldRSs, newRS], newRS);
      return;
    }
    await this.checkPaused(run);
    if (run.d.spec?.paused || (await isScalingEvent(run))) await syncScale(run);
    else if (run.d.spec?.strategy?.type === 'Recreate')
      await rolloutRecreate(run, (newRS) => this.oldPodsRunning(run.rsList, newRS, ns));
    else await rolloutRolling(run);
    return run.requeueAfter;
  }

  /** checkPausedConditions: Progressing Unknown with DeploymentPaused or DeploymentResumed (a timeout stays). */
  private async checkPaused(run: DeploymentRun): Promise<void> {
    const d = run.d;
    if (!hasProgressDeadline(d)) return;
    const c = conditionOf(d.status, 'Progressing');
    if (c?.reason === Reasons.ProgressDeadlineExceeded) return;
    const pausedCondition = c?.reason === Reasons.DeploymentPaused;
    const status = structuredClone(d.status ?? {});
    if (d.spec?.paused && !pausedCondition)
      setCondition(
        status,
        newCondition('Progressing', 'Unknown', Reasons.DeploymentPaused, 'Deployment is paused'),
      );
    else if (!d.spec?.paused && pausedCondition)
      setCondition(
        status,
        newCondition('Progressing', 'Unknown', Reasons.DeploymentResumed, 'Deployment is resumed'),
      );
    else return;
    await run.updateStatus(status);
  }
}
