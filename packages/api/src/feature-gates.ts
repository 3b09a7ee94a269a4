import { parseFeatureGateFlag } from '@kruise/kube-compat';

/** Kruise's feature gates with upstream's defaults (kruise-manager and kruise-daemon share one set, as upstream's binaries do). */
export const FEATURE_DEFAULTS: Record<string, boolean> = {
  KruiseDaemon: true,
  ImagePullJobGate: false,
  DaemonWatchingPod: true,
  PreDownloadImageForInPlaceUpdate: false,
  PreDownloadImageForDaemonSetUpdate: false,
  KruisePodReadinessGate: false,
  InPlaceUpdateEnvFromMetadata: true,
  PodProbeMarkerGate: true,
  SidecarTerminator: false,
  EnhancedLivenessProbe: false,
  // CloneSet and the in-place update machinery.
  PodWebhook: true,
  CloneSetShortHash: false,
  CloneSetPartitionRollback: false,
  CloneSetEventHandlerOptimization: false,
  PreparingUpdateAsUpdate: false,
  RecreatePodWhenChangeVCTInCloneSetGate: false,
  ForceDeleteTimeoutExpectationGate: false,
  InPlaceWorkloadVerticalScaling: false,
  TemplateNoDefaults: false,
  ResourcesDeletionProtection: false,
  DeletionProtectionForCRDCascadingGate: false,
  // PodUnavailableBudget: deletions and evictions (beta, on), in-place updates (alpha, off), resizes apart.
  PodUnavailableBudgetDeleteGate: true,
  PodUnavailableBudgetUpdateGate: false,
  InPlacePodVerticalScaling: false,
  // Advanced StatefulSet.
  StatefulSetAutoDeletePVC: true,
  StatefulSetAutoResizePVCGate: false,
  StatefulSetStartOrdinal: false,
  PodIndexLabel: true,
  // SidecarSet injection.
  EnableSortSidecarContainerByName: false,
  // SidecarSet: patchPodMetadata allowed without a whitelist in kruise-configuration.
  SidecarSetPatchPodMetadataDefaultsAllowed: false,
};

/** Gates forced off when PodWebhook is off (those in FEATURE_DEFAULTS of upstream's list). */
const NEED_POD_WEBHOOK = [
  'KruisePodReadinessGate',
  'PodUnavailableBudgetDeleteGate',
  'PodUnavailableBudgetUpdateGate',
  'EnhancedLivenessProbe',
];

/** Gates forced off when KruiseDaemon is off. */
const NEED_DAEMON = [
  'ImagePullJobGate',
  'DaemonWatchingPod',
  'InPlaceUpdateEnvFromMetadata',
  'PreDownloadImageForInPlaceUpdate',
  'PreDownloadImageForDaemonSetUpdate',
  'PodProbeMarkerGate',
  'SidecarTerminator',
  'EnhancedLivenessProbe',
];

/** Resolved feature gates. */
export class FeatureGates {
  private readonly values: Record<string, boolean>;

  constructor(values: Record<string, boolean>) {
    this.values = values;
  }

  /** Whether a gate is on. */
  enabled(name: string): boolean {
    return this.values[name] ?? false;
  }

  /** Every gate and its value. */
  all(): Record<string, boolean> {
    return { ...this.values };
  }
}

/**
 * Parses `--feature-gates` (`A=true,B=false`) over upstream's defaults and applies upstream's
 * implications: PodWebhook off turns the pod-webhook-backed gates off; either PreDownloadImageFor*
 * gate turns ImagePullJobGate on; KruiseDaemon off turns every daemon-backed gate off;
 * ResourcesDeletionProtection off turns DeletionProtectionForCRDCascadingGate off.
 * @throws Error naming an unknown gate or a value that is not a boolean.
 */
export function parseFeatureGates(text: string | undefined): FeatureGates {
  const values = parseFeatureGateFlag(text, FEATURE_DEFAULTS);
  if (values.PreDownloadImageForInPlaceUpdate || values.PreDownloadImageForDaemonSetUpdate)
    values.ImagePullJobGate = true;
  if (!values.PodWebhook) for (const g of NEED_POD_WEBHOOK) values[g] = false;
  if (!values.KruiseDaemon) for (const g of NEED_DAEMON) values[g] = false;
  if (!values.ResourcesDeletionProtection) values.DeletionProtectionForCRDCascadingGate = false;
  return new FeatureGates(values);
}
