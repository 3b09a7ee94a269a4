import { DaemonSetController } from './daemonset/daemonset-controller.ts';
import { DeploymentController } from './deployment/deployment-controller.ts';
import type { ControllerDeps } from './deps.ts';
import { DisruptionController } from './disruption/disruption-controller.ts';
import { EndpointsController } from './endpoints/endpoints-controller.ts';
import { EndpointSliceController } from './endpoints/endpointslice-controller.ts';
import { JobController, type JobControllerOptions } from './job/job-controller.ts';
import { TtlAfterFinishedController } from './job/ttl-after-finished.ts';
import { NodeLifecycleController, type NodeLifecycleOptions } from './node-lifecycle/node-lifecycle.ts';
import { ReplicaSetController } from './replicaset/replicaset-controller.ts';
import { Scheduler } from './scheduler/scheduler.ts';
import { RootCaPublisher } from './service-accounts/root-ca-publisher.ts';
import { ServiceAccountController } from './service-accounts/service-account-controller.ts';
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

/** What the controllers learn of the cluster itself. */
export interface ClusterFacts {
  /** The CA (PEM) that signed the API server's serving certificate, published as `kube-root-ca.crt`. */
  rootCaCert: string;
}

/** The running parts; `idle` resolves once the namespace and Service controllers made their first pass; `stop` ends them. */
export interface KubeControllers {
  scheduler: Scheduler | undefined;
  statefulSets: StatefulSetController | undefined;
  daemonSets: DaemonSetController | undefined;
  idle(): Promise<void>;
  stop(): void;
}

/** Starts the parts of kube-scheduler and kube-controller-manager that workloads rely on. */
export function startKubeControllers(
  deps: ControllerDeps,
  options: KubeControllerOptions,
  cluster: ClusterFacts,
): KubeControllers {
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
  const passes = [
    new ServiceAccountController(deps),
    new RootCaPublisher(deps, cluster.rootCaCert),
    new EndpointsController(deps),
    new EndpointSliceController(deps),
  ];
  return {
    scheduler,
    statefulSets,
    daemonSets,
    idle: async () => {
      await Promise.all(passes.map((c) => c.idle()));
    },
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
      for (const c of passes) c.stop();
    },
  };
}
