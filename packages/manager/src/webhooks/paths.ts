import type { FeatureGates } from '@kruise/api';
import { kubeletContainerHash } from '@kruise/kube-compat';
import { type AdmissionHandler, denied, type WebhookServer } from '@kruise/runtime';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { workloadDeletionDenial } from '../workload/deletion-protection/index.ts';
import { PubBudgetKeeper } from '../workload/pub/budget-keeper.ts';
import { mutateAdvancedCronJob } from './advancedcronjob/mutating.ts';
import { validateAdvancedCronJob } from './advancedcronjob/validating.ts';
import { mutateBroadcastJob } from './broadcastjob/mutating.ts';
import { validateBroadcastJob } from './broadcastjob/validating.ts';
import { mutateCloneSet } from './cloneset/mutating.ts';
import { validateCloneSet } from './cloneset/validating.ts';
import { type CrrLookup, mutateContainerRecreateRequest } from './containerrecreaterequest/mutating.ts';
import { mutateDaemonSet } from './daemonset/mutating.ts';
import { validateDaemonSet } from './daemonset/validating.ts';
import { deletionProtectionRoutes } from './deletion-protection/routes.ts';
import { type DeletionProtectionLookups, NO_DELETION_LOOKUPS } from './deletion-protection/validating.ts';
import { mutateImageListPullJob } from './imagelistpulljob/mutating.ts';
import { validateImageListPullJob } from './imagelistpulljob/validating.ts';
import { mutateImagePullJob } from './imagepulljob/mutating.ts';
import { validateImagePullJob } from './imagepulljob/validating.ts';
import { mutateNodeImage } from './nodeimage/mutating.ts';
import { validateNodeImage } from './nodeimage/validating.ts';
import { mutatePod } from './pod/mutating.ts';
import type { RelatedPubLookups } from './pod/related-pub.ts';
import { NO_SIDECARSETS, type SidecarSetLookups } from './pod/sidecarset/lookups.ts';
import { type PodValidationDeps, validatePod } from './pod/validating.ts';
import {
  NO_PUB_LOOKUPS,
  type PubAdmissionLookups,
  validatePodUnavailableBudget,
} from './podunavailablebudget/validating.ts';
import { NO_SIDECARSET_LOOKUPS, type SidecarSetAdmissionLookups } from './sidecarset/lookups.ts';
import { mutateSidecarSet } from './sidecarset/mutating.ts';
import { validateSidecarSet } from './sidecarset/validating.ts';
import { mutateStatefulSet } from './statefulset/mutating.ts';
import { validateStatefulSet } from './statefulset/validating.ts';
import type { StorageClassLookup } from './statefulset/volume-claim-update.ts';

/** One webhook: its path (upstream's ≤1.8 spelling, the one our configurations use) and handler. */
export interface WebhookRoute {
  kind: string;
  plural: string;
  mutating: boolean;
  path: string;
  handler: AdmissionHandler;
  /** API group and versions of the resource (apps.kruise.io/v1alpha1 when absent). */
  group?: string;
  versions?: string[];
  /** Operations the webhook sees (CREATE and UPDATE when absent). */
  operations?: string[];
  /** Namespaces it skips: those with this label key. */
  skipNamespacesLabelled?: string;
  /** Objects it sees: those with this label key (objectSelector "Exists"). */
  objectSelectorLabelExists?: string;
  /** The webhook's name when not `<m|v><kind>.kb.io`. */
  name?: string;
}

/** A lookup for generating configurations, where no request is ever served. */
const NO_LOOKUP: CrrLookup = {
  pod: () => Promise.reject(new Error('no API access')),
  node: () => Promise.reject(new Error('no API access')),
};

/** StorageClasses for generating configurations, where no request is ever served. */
const NO_STORAGE_CLASSES: StorageClassLookup = {
  get: () => Promise.reject(new Error('no API access')),
  list: () => Promise.reject(new Error('no API access')),
};

/** What the webhooks read besides their requests; each absent one refuses (configuration generation). */
export interface WebhookLookups {
  /** Pods and nodes (ContainerRecreateRequest, CloneSet deletion). */
  crr?: CrrLookup;
  /** StorageClasses (Advanced StatefulSet claim expansion). */
  storageClasses?: StorageClassLookup;
  /** SidecarSets, namespaces and revisions from the caches (pod injection). */
  sidecarSets?: SidecarSetLookups;
  /** SidecarSets and revisions from the API (SidecarSet admission). */
  sidecarSetAdmission?: SidecarSetAdmissionLookups;
  /** Dependants of a deleted object (deletion protection). */
  deletion?: DeletionProtectionLookups;
  /** Budgets and pods for the pod validating webhooks (PodUnavailableBudget). */
  podValidation?: PodValidationDeps;
  /** Budgets and pods' workloads for the pod pipeline's related-pub step. */
  relatedPub?: RelatedPubLookups;
  /** The other budgets of a namespace, from the API (PodUnavailableBudget admission). */
  pubAdmission?: PubAdmissionLookups;
}

/**
 * Every webhook of kruise-manager: the image kinds', ContainerRecreateRequest's, CloneSet's,
 * Advanced StatefulSet's, Advanced DaemonSet's, BroadcastJob's, AdvancedCronJob's, SidecarSet's,
 * deletion protection's and the pod pipeline (gate PodWebhook: mpod, vpod, vpodeviction).
 */
export function webhookRoutes(gates: FeatureGates, lookups: WebhookLookups = {}): WebhookRoute[] {
  const crrLookup = lookups.crr ?? NO_LOOKUP;
  const storageClasses = lookups.storageClasses ?? NO_STORAGE_CLASSES;
  const sidecarSets = lookups.sidecarSets ?? NO_SIDECARSETS;
  const sidecarSetLookups = lookups.sidecarSetAdmission ?? NO_SIDECARSET_LOOKUPS;
  const deletionLookups = lookups.deletion ?? NO_DELETION_LOOKUPS;
  return [
    {
      kind: 'ImagePullJob',
      plural: 'imagepulljobs',
      mutating: true,
      path: '/mutate-apps-kruise-io-v1alpha1-imagepulljob',
      handler: mutateImagePullJob,
    },
    {
      kind: 'ImagePullJob',
      plural: 'imagepulljobs',
      mutating: false,
      path: '/validate-apps-kruise-io-v1alpha1-imagepulljob',
      handler: validateImagePullJob(gates),
    },
    {
      kind: 'ImageListPullJob',
      plural: 'imagelistpulljobs',
      mutating: true,
      path: '/mutate-apps-kruise-io-v1alpha1-imagelistpulljob',
      handler: mutateImageListPullJob,
    },
    {
      kind: 'ImageListPullJob',
      plural: 'imagelistpulljobs',
      mutating: false,
      path: '/validate-apps-kruise-io-v1alpha1-imagelistpulljob',
      handler: validateImageListPullJob(gates),
    },
    {
      kind: 'NodeImage',
      plural: 'nodeimages',
      mutating: true,
      path: '/mutate-apps-kruise-io-v1alpha1-nodeimage',
      handler: mutateNodeImage,
    },
    {
      kind: 'NodeImage',
      plural: 'nodeimages',
      mutating: false,
      path: '/validate-apps-kruise-io-v1alpha1-nodeimage',
      handler: validateNodeImage(gates),
    },
    {
      kind: 'ContainerRecreateRequest',
      plural: 'containerrecreaterequests',
      mutating: true,
      path: '/mutate-apps-kruise-io-v1alpha1-containerrecreaterequest',
      handler: mutateContainerRecreateRequest(gates, crrLookup),
    },
    {
      kind: 'CloneSet',
      plural: 'clonesets',
      mutating: true,
      path: '/mutate-apps-kruise-io-v1alpha1-cloneset',
      handler: mutateCloneSet(gates),
    },
    {
      kind: 'CloneSet',
      plural: 'clonesets',
      mutating: false,
      path: '/validate-apps-kruise-io-v1alpha1-cloneset',
      operations: ['CREATE', 'UPDATE', 'DELETE'],
      handler: validateCloneSet(gates, async (ns, name) => {
        const pod = await crrLookup.pod(ns, name);
        if (!pod) throw new Error(`pods "${name}" not found`);
        return pod as Pod;
      }),
    },
    {
      kind: 'StatefulSet',
      plural: 'statefulsets',
      mutating: true,
      path: '/mutate-apps-kruise-io-statefulset',
      versions: ['v1alpha1', 'v1beta1'],
      handler: mutateStatefulSet(gates),
    },
    {
      kind: 'StatefulSet',
      plural: 'statefulsets',
      mutating: false,
      path: '/validate-apps-kruise-io-statefulset',
      versions: ['v1alpha1', 'v1beta1'],
      operations: ['CREATE', 'UPDATE', 'DELETE'],
      handler: validateStatefulSet(gates, {
        storageClasses,
        deletionCheck: (old) => {
          const denial = workloadDeletionDenial(gates, old);
          return denial ? denied(403, denial) : undefined;
        },
      }),
    },
    {
      kind: 'DaemonSet',
      plural: 'daemonsets',
      mutating: true,
      path: '/mutate-apps-kruise-io-daemonset',
      versions: ['v1alpha1', 'v1beta1'],
      handler: mutateDaemonSet,
    },
    {
      kind: 'DaemonSet',
      plural: 'daemonsets',
      mutating: false,
      path: '/validate-apps-kruise-io-daemonset',
      versions: ['v1alpha1', 'v1beta1'],
      handler: validateDaemonSet,
    },
    {
      kind: 'BroadcastJob',
      plural: 'broadcastjobs',
      mutating: true,
      path: '/mutate-apps-kruise-io-broadcastjob',
      versions: ['v1alpha1', 'v1beta1'],
      handler: mutateBroadcastJob(gates),
    },
    {
      kind: 'BroadcastJob',
      plural: 'broadcastjobs',
      mutating: false,
      path: '/validate-apps-kruise-io-broadcastjob',
      versions: ['v1alpha1', 'v1beta1'],
      handler: validateBroadcastJob,
    },
    {
      kind: 'AdvancedCronJob',
      plural: 'advancedcronjobs',
      mutating: true,
      path: '/mutate-apps-kruise-io-advancedcronjob',
      versions: ['v1alpha1', 'v1beta1'],
      handler: mutateAdvancedCronJob(gates),
    },
    {
      kind: 'AdvancedCronJob',
      plural: 'advancedcronjobs',
      mutating: false,
      path: '/validate-apps-kruise-io-advancedcronjob',
      versions: ['v1alpha1', 'v1beta1'],
      handler: validateAdvancedCronJob,
    },
    {
      kind: 'SidecarSet',
      plural: 'sidecarsets',
      mutating: true,
      path: '/mutate-apps-kruise-io-sidecarset',
      versions: ['v1alpha1', 'v1beta1'],
      handler: mutateSidecarSet,
    },
    {
      kind: 'SidecarSet',
      plural: 'sidecarsets',
      mutating: false,
      path: '/validate-apps-kruise-io-sidecarset',
      versions: ['v1alpha1', 'v1beta1'],
      handler: validateSidecarSet(gates, sidecarSetLookups),
    },
    ...(gates.enabled('PodWebhook') ? podRoutes(gates, sidecarSets, lookups) : []),
    {
      kind: 'PodUnavailableBudget',
      plural: 'podunavailablebudgets',
      mutating: false,
      path: '/validate-policy-kruise-io-podunavailablebudget',
      group: 'policy.kruise.io',
      versions: ['v1alpha1'],
      handler: validatePodUnavailableBudget(gates, lookups.pubAdmission ?? NO_PUB_LOOKUPS),
    },
    ...deletionProtectionRoutes(gates, deletionLookups),
  ];
}

/** A stand-in for the pod validating webhooks' reads, where no request is ever served. */
const NO_POD_VALIDATION: PodValidationDeps = {
  pod: () => Promise.reject(new Error('no API access')),
  keeper: new PubBudgetKeeper({
    synced: () => Promise.reject(new Error('no API access')),
    cached: () => undefined,
    read: () => Promise.reject(new Error('no API access')),
    writeStatus: () => Promise.reject(new Error('no API access')),
  }),
  kubeletHash: kubeletContainerHash,
  inPlacePodVerticalScaling: false,
  now: () => new Date(),
};

/** The pod pipeline `mpod.kb.io` and the pod validating webhooks `vpod.kb.io` and `vpodeviction.kb.io`. */
function podRoutes(
  gates: FeatureGates,
  sidecarSets: SidecarSetLookups,
  lookups: WebhookLookups,
): WebhookRoute[] {
  const validating = validatePod(gates, lookups.podValidation ?? NO_POD_VALIDATION);
  return [
    {
      kind: 'Pod',
      plural: 'pods',
      mutating: true,
      path: '/mutate-pod',
      group: '',
      versions: ['v1'],
      operations: ['CREATE'],
      skipNamespacesLabelled: 'control-plane',
      handler: mutatePod(gates, {
        sidecarSets,
        ...(lookups.relatedPub ? { relatedPub: lookups.relatedPub } : {}),
      }),
    },
    {
      kind: 'Pod',
      plural: 'pods',
      mutating: false,
      name: 'vpod.kb.io',
      path: '/validate-pod',
      // as mpod: kruise-manager's own namespace is left out, so its pods can always be replaced
      skipNamespacesLabelled: 'control-plane',
      group: '',
      versions: ['v1'],
      operations: ['UPDATE', 'DELETE'],
      handler: validating,
    },
    {
      kind: 'Pod',
      plural: 'pods/eviction',
      mutating: false,
      name: 'vpodeviction.kb.io',
      path: '/validate-pod',
      // as mpod: kruise-manager's own namespace is left out, so its pods can always be replaced
      skipNamespacesLabelled: 'control-plane',
      group: '',
      versions: ['v1'],
      operations: ['CREATE'],
      handler: validating,
    },
  ];
}

/** Registers routes at their path and at upstream v1.9's path without `-v1alpha1-`. */
export function registerRoutes(server: WebhookServer, routes: WebhookRoute[]): void {
  for (const r of routes) {
    server.register(r.path, r.handler);
    server.register(r.path.replace('-v1alpha1-', '-'), r.handler);
  }
}
