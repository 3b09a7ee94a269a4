import { DaemonSetController } from './daemonset/daemonset-controller.ts';
import { DeploymentController } from './deployment/deployment-controller.ts';
import type { ControllerDeps } from './deps.ts';
import { DisruptionController } from './disruption/disruption-controller.ts';
import { JobController, type JobControllerOptions } from './job/job-controller.ts';
import { TtlAfterFinishedController } from './job/ttl-after-finished.ts';
import { NodeLifecycleController, type NodeLifecycleOptions } from './node-lifecycle/node-lifecycle.ts';
import { ReplicaSetController } from './replicaset/replicaset-controller.ts';
import { Scheduler } from './scheduler/scheduler.ts';
import { StatefulSetController } from './statefulset/statefulset-controller.ts';
import { VolumeController, type VolumeOptions } from './storage/volume-controller.ts';

/** Which of kube-scheduler's and kube-controller-manager's parts run, and how. */
export interface KubeControllerOptions extends NodeLifecycleOptions, VolumeOptions, JobControllerOptions {
  /** Run the scheduler (default true); off for tests that bind pods themselves. */
  scheduler?: boolean;
  /** Run the Job and TTL-after-finished controllers (default true); off for tests that write Job status themselves. */
  jobs?: boolean;
  /**
   * Run the ReplicaSet and Deployment controllers (default true); off for tests that want
   * Deployments and ReplicaSets stored and left alone.
   */
  replicaSets?: boolean;
  /**
   * Run the StatefulSet and DaemonSet controllers (default true); off for tests that drive those
   * workloads' pods themselves.
   */
  workloadSets?: boolean;
}

/** The running parts; `stop` ends them. */
export interface KubeControllers {
  scheduler: Scheduler | undefined;
  statefulSets: StatefulSetController | undefined;
  daemonSets: DaemonSetController | undefined;
  stop(): void;
}

/** Starts the parts of kube-scheduler and kube-controller-manager that workloads rely on. */
export function startKubeControllers(deps: ControllerDeps, options: KubeControllerOptions): KubeControllers {
  const scheduler = options.scheduler === false ? undefined : new Scheduler(deps);
  const disruption = new DisruptionController(deps);
  const lifecycle = new NodeLifecycleController(deps, options);
  const volumes = new VolumeController(deps, options);
  const jobs = options.jobs === false ? undefined : new JobController(deps, options);
  const ttl = options.jobs === false ? undefined : new TtlAfterFinishedController(deps);
  const workloads =
    options.replicaSets === false ? [] : [new ReplicaSetController(deps), new DeploymentController(deps)];
  const statefulSets = options.workloadSets === false ? undefined : new StatefulSetController(deps);
  const daemonSets = options.workloadSets === false ? undefined : new DaemonSetController(deps);
  return {
    scheduler,
    statefulSets,
    daemonSets,
    stop: () => {
      statefulSets?.stop();
      daemonSets?.stop();
      scheduler?.stop();
      disruption.stop();
      lifecycle.stop();
      volumes.stop();
      jobs?.stop();
      ttl?.stop();
      for (const w of workloads) w.stop();
    },
  };
}
