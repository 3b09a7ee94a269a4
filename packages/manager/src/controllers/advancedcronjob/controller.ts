import { type AdvancedCronJob, KruiseResources, type OwnerReference, type TemplateKind } from '@kruise/api';
import {
  type ControllerBuilder,
  type Informer,
  type KubeObject,
  type Manager,
  type ResourceRef,
  Resources,
} from '@kruise/runtime';
import type { AddOptions } from '../add-options.ts';
import { cronJobKinds } from './job-kinds.ts';
import { AdvancedCronJobReconciler, BY_CRON_JOB } from './reconcile.ts';

const NAME = 'advancedcronjob';
const OWNER_API_VERSIONS = new Set(['apps.kruise.io/v1alpha1', 'apps.kruise.io/v1beta1']);

/** `namespace/name` of a run's controlling AdvancedCronJob (either version), as upstream indexes runs. */
function cronJobOf(run: KubeObject): string[] {
  const refs: OwnerReference[] = run.metadata?.ownerReferences ?? [];
  const owner = refs.find((r) => r.controller);
  if (owner?.kind !== 'AdvancedCronJob' || !OWNER_API_VERSIONS.has(owner.apiVersion)) return [];
  return [`${run.metadata?.namespace ?? ''}/${owner.name}`];
}

/**
 * Adds the AdvancedCronJob controller: reconciles AdvancedCronJobs and owns the Jobs, BroadcastJobs
 * and ImageListPullJobs they create (a run's events queue its AdvancedCronJob). Its clock is
 * `tuning.now` when tests give one.
 */
export function add(manager: Manager, { flags, tuning }: AddOptions): ControllerBuilder {
  const cronJobs = manager.informers.informerFor<AdvancedCronJob & KubeObject>({
    resource: KruiseResources.AdvancedCronJob,
  });
  const runs = (resource: ResourceRef): Informer<KubeObject> => {
    const informer = manager.informers.informerFor<KubeObject>({ resource });
    informer.addIndex(BY_CRON_JOB, cronJobOf);
    return informer;
  };
  const informers: Record<TemplateKind, Informer<KubeObject>> = {
    Job: runs(Resources.Job),
    BroadcastJob: runs(KruiseResources.BroadcastJob),
    ImageListPullJob: runs(KruiseResources.ImageListPullJob),
  };
  const reconciler = new AdvancedCronJobReconciler({
    client: manager.client,
    cronJobs,
    kinds: cronJobKinds(informers),
    recorder: manager.eventRecorder('advancedcronjob-controller'),
    now: tuning.now ?? Date.now,
  });
  const builder = manager
    .newController({
      name: NAME,
      workers: flags.advancedCronJobWorkers,
      reconcile: (ctx, req) => reconciler.reconcile(ctx.log, req),
    })
    .reconciles(cronJobs);
  for (const informer of Object.values(informers)) builder.owns(informer, 'AdvancedCronJob');
  return builder;
}
