/**
 * The controller finder: a workload reference (a pod's controller, a PodUnavailableBudget's
 * targetRef) to the workload's replicas and selector, and a workload to its pods — upstream's
 * pkg/util/controllerfinder, shared by PodUnavailableBudget, WorkloadSpread, UnitedDeployment and
 * PersistentPodState.
 */
export * from './cached-sources.ts';
export * from './finder.ts';
export * from './known-workloads.ts';
export * from './types.ts';
export * from './workload-informers.ts';
