import { resourceRef } from '@kruise/kube-compat/resource-ref';
import { GROUP, POLICY_GROUP, VERSION } from './group.ts';

/**
 * Where each Kruise kind is served. The programs that read and write these kinds (kruise-manager,
 * kruise-daemon, kubectl-kruise) take them from here; the controller kit in `@kruise/runtime` knows
 * only built-in Kubernetes kinds and is handed these as plain resource references.
 */
export const KruiseResources = {
  NodeImage: resourceRef(GROUP, VERSION, 'nodeimages', 'NodeImage', false),
  ImagePullJob: resourceRef(GROUP, VERSION, 'imagepulljobs', 'ImagePullJob', true),
  ImageListPullJob: resourceRef(GROUP, VERSION, 'imagelistpulljobs', 'ImageListPullJob', true),
  ContainerRecreateRequest: resourceRef(
    GROUP,
    VERSION,
    'containerrecreaterequests',
    'ContainerRecreateRequest',
    true,
  ),
  CloneSet: resourceRef(GROUP, VERSION, 'clonesets', 'CloneSet', true),
  /** Advanced StatefulSet, at its storage version (v1alpha1 is served too, converted by kruise-manager). */
  StatefulSet: resourceRef(GROUP, 'v1beta1', 'statefulsets', 'StatefulSet', true),
  /** Advanced DaemonSet, at its storage version (v1alpha1 is served too, converted by kruise-manager). */
  DaemonSet: resourceRef(GROUP, 'v1beta1', 'daemonsets', 'DaemonSet', true),
  /** BroadcastJob, at its storage version (v1alpha1 is served too, converted by kruise-manager). */
  BroadcastJob: resourceRef(GROUP, 'v1beta1', 'broadcastjobs', 'BroadcastJob', true),
  /** AdvancedCronJob, at its storage version (v1alpha1 is served too, converted by kruise-manager). */
  AdvancedCronJob: resourceRef(GROUP, 'v1beta1', 'advancedcronjobs', 'AdvancedCronJob', true),
  /** SidecarSet (cluster-scoped), at its storage version (v1alpha1 is served too, converted by kruise-manager). */
  SidecarSet: resourceRef(GROUP, 'v1beta1', 'sidecarsets', 'SidecarSet', false),
  /** PodUnavailableBudget, in `policy.kruise.io` (v1alpha1 only, as upstream v1.9). */
  PodUnavailableBudget: resourceRef(
    POLICY_GROUP,
    'v1alpha1',
    'podunavailablebudgets',
    'PodUnavailableBudget',
    true,
  ),
} as const;
