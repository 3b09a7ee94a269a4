import type { ControllerDeps } from './deps.ts';
import { DisruptionController } from './disruption/disruption-controller.ts';
import { JobController, type JobControllerOptions } from './job/job-controller.ts';
import { TtlAfterFinishedController } from './job/ttl-after-finished.ts';
import { NodeLifecycleController, type NodeLifecycleOptions } from './node-lifecycle/node-lifecycle.ts';
import { Scheduler } from './scheduler/scheduler.ts';
import { VolumeController, type VolumeOptions } from './storage/volume-controller.ts';

/** Which of kube-scheduler's and kube-controller-manager's parts run, and how. */
export interface KubeControllerOptions extends NodeLifecycleOptions, VolumeOptions, JobControllerOptions {
  /** Run the scheduler (default true); off for tests that bind pods themselves. */
  scheduler?: boolean;
  /** Run the Job and TTL-after-finished controllers (default true); off for tests that write Job status themselves. */
  jobs?: boolean;
}

/** The running parts; `stop` ends them. */
export interface KubeControllers {
  scheduler: Scheduler | undefined;
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
  return {
    scheduler,
    stop: () => {
      scheduler?.stop();
      disruption.stop();
      lifecycle.stop();
      volumes.stop();
      jobs?.stop();
      ttl?.stop();
    },
  };
}
