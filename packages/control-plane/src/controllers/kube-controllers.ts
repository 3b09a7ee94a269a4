import type { ControllerDeps } from './deps.ts';
import { DisruptionController } from './disruption/disruption-controller.ts';
import { EndpointsController } from './endpoints/endpoints-controller.ts';
import { EndpointSliceController } from './endpoints/endpointslice-controller.ts';
import { NodeLifecycleController, type NodeLifecycleOptions } from './node-lifecycle/node-lifecycle.ts';
import { Scheduler } from './scheduler/scheduler.ts';
import { RootCaPublisher } from './service-accounts/root-ca-publisher.ts';
import { ServiceAccountController } from './service-accounts/service-account-controller.ts';
import { VolumeController, type VolumeOptions } from './storage/volume-controller.ts';

/** Which of kube-scheduler's and kube-controller-manager's parts run, and how. */
export interface KubeControllerOptions extends NodeLifecycleOptions, VolumeOptions {
  /** Run the scheduler (default true); off for tests that bind pods themselves. */
  scheduler?: boolean;
}

/** What the controllers learn of the cluster itself. */
export interface ClusterFacts {
  /** The CA (PEM) that signed the API server's serving certificate, published as `kube-root-ca.crt`. */
  rootCaCert: string;
}

/** The running parts; `idle` resolves once the namespace and Service controllers made their first pass; `stop` ends them. */
export interface KubeControllers {
  scheduler: Scheduler | undefined;
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
  const passes = [
    new ServiceAccountController(deps),
    new RootCaPublisher(deps, cluster.rootCaCert),
    new EndpointsController(deps),
    new EndpointSliceController(deps),
  ];
  return {
    scheduler,
    idle: async () => {
      await Promise.all(passes.map((c) => c.idle()));
    },
    stop: () => {
      scheduler?.stop();
      disruption.stop();
      lifecycle.stop();
      volumes.stop();
      for (const c of passes) c.stop();
    },
  };
}
