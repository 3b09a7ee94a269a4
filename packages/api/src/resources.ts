import type { ResourceRef } from '@kruise/kube-compat';
import type { TSchema } from '@sinclair/typebox';
import { KruiseResources } from './kinds.ts';
import { AdvancedCronJobSchema, AdvancedCronJobV1alpha1Schema } from './schema/advancedcronjob.ts';
import { BroadcastJobSchema } from './schema/broadcastjob.ts';
import { CloneSetSchema } from './schema/cloneset.ts';
import { ContainerRecreateRequestSchema } from './schema/containerrecreaterequest.ts';
import { DaemonSetSchema, DaemonSetV1alpha1Schema } from './schema/daemonset.ts';
import { ImageListPullJobSchema } from './schema/imagelistpulljob.ts';
import { ImagePullJobSchema } from './schema/imagepulljob.ts';
import { NodeImageSchema } from './schema/nodeimage.ts';
import { PodUnavailableBudgetSchema } from './schema/podunavailablebudget.ts';
import { SidecarSetSchema, SidecarSetV1alpha1Schema } from './schema/sidecarset.ts';
import { StatefulSetSchema, StatefulSetV1alpha1Schema } from './schema/statefulset.ts';

/** A printer column as `kubectl get` shows it. */
export interface PrinterColumn {
  name: string;
  type: 'integer' | 'string' | 'date' | 'number' | 'boolean';
  jsonPath: string;
  description: string;
  priority?: number;
}

/** A version a kind is served at beside its storage version, with that version's schema. */
export interface ServedVersion {
  version: string;
  schema: TSchema;
}

/** Everything needed to serve or describe one Kruise kind. */
export interface KruiseResource {
  group: string;
  version: string;
  kind: string;
  listKind: string;
  plural: string;
  singular: string;
  scope: 'Namespaced' | 'Cluster';
  shortNames: string[];
  categories: string[];
  printerColumns: PrinterColumn[];
  /** The schema at `version`, the storage version. */
  schema: TSchema;
  /** The `scale` subresource's paths, for kinds that have one. */
  scale?: { specReplicasPath: string; statusReplicasPath: string; labelSelectorPath: string };
  /**
   * The other versions the kind is served at (same columns and subresources). Objects are stored at
   * `version`; kruise-manager's conversion webhook converts between them.
   */
  servedVersions?: ServedVersion[];
}

const AGE: PrinterColumn = {
  name: 'AGE',
  type: 'date',
  jsonPath: '.metadata.creationTimestamp',
  description:
    'CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.',
};

/** The names a CRD gives the kind served at `ref` (`NodeImageList`, `nodeimage`), and its scope. */
const served = (ref: ResourceRef) => ({
  group: ref.group,
  version: ref.version,
  kind: ref.kind,
  listKind: `${ref.kind}List`,
  plural: ref.plural,
  singular: ref.kind.toLowerCase(),
  scope: ref.namespaced ? ('Namespaced' as const) : ('Cluster' as const),
  categories: [] as string[],
});

/** NodeImage (cluster-scoped, one per node). */
export const NodeImageResource: KruiseResource = {
  ...served(KruiseResources.NodeImage),
  shortNames: [],
  printerColumns: [
    {
      name: 'DESIRED',
      type: 'integer',
      jsonPath: '.status.desired',
      description: 'Number of all images on this node',
    },
    {
      name: 'PULLING',
      type: 'integer',
      jsonPath: '.status.pulling',
      description: 'Number of image pull task active',
    },
    {
      name: 'SUCCEED',
      type: 'integer',
      jsonPath: '.status.succeeded',
      description: 'Number of image pull task succeeded',
    },
    {
      name: 'FAILED',
      type: 'integer',
      jsonPath: '.status.failed',
      description: 'Number of image pull tasks failed',
    },
    AGE,
  ],
  schema: NodeImageSchema,
};

/** ImagePullJob. */
export const ImagePullJobResource: KruiseResource = {
  ...served(KruiseResources.ImagePullJob),
  shortNames: [],
  printerColumns: [
    {
      name: 'TOTAL',
      type: 'integer',
      jsonPath: '.status.desired',
      description: 'Number of all nodes matched by this job',
    },
    {
      name: 'ACTIVE',
      type: 'integer',
      jsonPath: '.status.active',
      description: 'Number of image pull task active',
    },
    {
      name: 'SUCCEED',
      type: 'integer',
      jsonPath: '.status.succeeded',
      description: 'Number of image pull task succeeded',
    },
    {
      name: 'FAILED',
      type: 'integer',
      jsonPath: '.status.failed',
      description: 'Number of image pull tasks failed',
    },
    AGE,
    {
      name: 'MESSAGE',
      type: 'string',
      jsonPath: '.status.message',
      description: 'Summary of status when job is failed',
    },
  ],
  schema: ImagePullJobSchema,
};

/** ImageListPullJob. */
export const ImageListPullJobResource: KruiseResource = {
  ...served(KruiseResources.ImageListPullJob),
  shortNames: [],
  printerColumns: [
    { name: 'TOTAL', type: 'integer', jsonPath: '.status.desired', description: 'Number of image pull job' },
    {
      name: 'SUCCEEDED',
      type: 'integer',
      jsonPath: '.status.succeeded',
      description: 'Number of image pull job succeeded',
    },
    {
      name: 'COMPLETED',
      type: 'integer',
      jsonPath: '.status.completed',
      description: 'Number of ImagePullJobs which are finished',
    },
    AGE,
  ],
  schema: ImageListPullJobSchema,
};

/** ContainerRecreateRequest (short name `crr`). */
export const ContainerRecreateRequestResource: KruiseResource = {
  ...served(KruiseResources.ContainerRecreateRequest),
  shortNames: ['crr'],
  printerColumns: [
    {
      name: 'PHASE',
      type: 'string',
      jsonPath: '.status.phase',
      description: 'Phase of this ContainerRecreateRequest.',
    },
    {
      name: 'POD',
      type: 'string',
      jsonPath: '.spec.podName',
      description: 'Pod name of this ContainerRecreateRequest.',
    },
    {
      name: 'NODE',
      type: 'string',
      jsonPath: '.metadata.labels.crr\\.apps\\.kruise\\.io/node-name',
      description: 'Node name of this ContainerRecreateRequest.',
    },
    AGE,
  ],
  schema: ContainerRecreateRequestSchema,
};

const count = (name: string, jsonPath: string, description: string): PrinterColumn => ({
  name,
  type: 'integer',
  jsonPath,
  description,
});
const wide = (name: string, jsonPath: string, description: string): PrinterColumn => ({
  name,
  type: 'string',
  jsonPath,
  description,
  priority: 1,
});

/** The `scale` subresource of the workloads: replicas in spec and status, the selector HPA uses. */
const REPLICAS_SCALE = {
  specReplicasPath: '.spec.replicas',
  statusReplicasPath: '.status.replicas',
  labelSelectorPath: '.status.labelSelector',
};

/** CloneSet (short name `clone`), with the `scale` subresource HPA and `kubectl scale` use. */
export const CloneSetResource: KruiseResource = {
  ...served(KruiseResources.CloneSet),
  shortNames: ['clone'],
  printerColumns: [
    count('DESIRED', '.spec.replicas', 'The desired number of pods.'),
    count('UPDATED', '.status.updatedReplicas', 'The number of pods updated.'),
    count('UPDATED_READY', '.status.updatedReadyReplicas', 'The number of pods updated and ready.'),
    count(
      'UPDATED_AVAILABLE',
      '.status.updatedAvailableReplicas',
      'The number of pods updated and available.',
    ),
    count('READY', '.status.readyReplicas', 'The number of pods ready.'),
    count('TOTAL', '.status.replicas', 'The number of currently all pods.'),
    AGE,
    wide('CONTAINERS', '.spec.template.spec.containers[*].name', 'The containers of currently cloneset.'),
    wide('IMAGES', '.spec.template.spec.containers[*].image', 'The images of currently cloneset.'),
    wide('SELECTOR', '.status.labelSelector', 'The selector of currently cloneset.'),
  ],
  schema: CloneSetSchema,
  scale: REPLICAS_SCALE,
};

/**
 * Advanced StatefulSet (short names `sts`, `asts`): stored at v1beta1, served at v1alpha1 too, with
 * the `scale` subresource HPA and `kubectl scale` use.
 */
export const StatefulSetResource: KruiseResource = {
  ...served(KruiseResources.StatefulSet),
  shortNames: ['sts', 'asts'],
  printerColumns: [
    count('DESIRED', '.spec.replicas', 'The desired number of pods.'),
    count('CURRENT', '.status.replicas', 'The number of currently all pods.'),
    count('UPDATED', '.status.updatedReplicas', 'The number of pods updated.'),
    count('READY', '.status.readyReplicas', 'The number of pods ready.'),
    AGE,
    wide(
      'CONTAINERS',
      '.spec.template.spec.containers[*].name',
      'The containers of currently advanced statefulset.',
    ),
    wide(
      'IMAGES',
      '.spec.template.spec.containers[*].image',
      'The images of currently advanced statefulset.',
    ),
  ],
  schema: StatefulSetSchema,
  scale: REPLICAS_SCALE,
  servedVersions: [{ version: 'v1alpha1', schema: StatefulSetV1alpha1Schema }],
};

/** Advanced DaemonSet (short names `daemon`, `ads`): stored at v1beta1, served at v1alpha1 too. */
export const DaemonSetResource: KruiseResource = {
  ...served(KruiseResources.DaemonSet),
  shortNames: ['daemon', 'ads'],
  printerColumns: [
    count('DESIRED', '.status.desiredNumberScheduled', 'The desired number of pods.'),
    count('CURRENT', '.status.currentNumberScheduled', 'The current number of pods.'),
    count('READY', '.status.numberReady', 'The ready number of pods.'),
    count('UP-TO-DATE', '.status.updatedNumberScheduled', 'The updated number of pods.'),
    count('AVAILABLE', '.status.numberAvailable', 'The updated number of pods.'),
    AGE,
    wide('CONTAINERS', '.spec.template.spec.containers[*].name', 'The containers of currently  daemonset.'),
    wide('IMAGES', '.spec.template.spec.containers[*].image', 'The images of currently advanced daemonset.'),
  ],
  schema: DaemonSetSchema,
  servedVersions: [{ version: 'v1alpha1', schema: DaemonSetV1alpha1Schema }],
};

/**
 * BroadcastJob (short name `bcj`): stored at v1beta1, served at v1alpha1 too with the same schema,
 * converted by kruise-manager.
 */
export const BroadcastJobResource: KruiseResource = {
  ...served(KruiseResources.BroadcastJob),
  shortNames: ['bcj'],
  printerColumns: [
    count(
      'Desired',
      '.status.desired',
      'The desired number of pods. This is typically equal to the number of nodes satisfied to run pods.',
    ),
    count('Active', '.status.active', 'The number of actively running pods.'),
    count('Succeeded', '.status.succeeded', 'The number of pods which reached phase Succeeded.'),
    count('Failed', '.status.failed', 'The number of pods which reached phase Failed.'),
    AGE,
  ],
  schema: BroadcastJobSchema,
  servedVersions: [{ version: 'v1alpha1', schema: BroadcastJobSchema }],
};

/**
 * AdvancedCronJob (short name `acj`): stored at v1beta1, served at v1alpha1 too (without the
 * imageListPullJobTemplate), converted by kruise-manager.
 */
export const AdvancedCronJobResource: KruiseResource = {
  ...served(KruiseResources.AdvancedCronJob),
  shortNames: ['acj'],
  printerColumns: [
    {
      name: 'Schedule',
      type: 'string',
      jsonPath: '.spec.schedule',
      description: 'The schedule of advanced cron job.',
    },
    { name: 'Type', type: 'string', jsonPath: '.status.type', description: 'Type of cron job.' },
    {
      name: 'LastScheduleTime',
      type: 'date',
      jsonPath: '.status.lastScheduleTime',
      description: 'The last time at which job was scheduled.',
    },
    AGE,
  ],
  schema: AdvancedCronJobSchema,
  servedVersions: [{ version: 'v1alpha1', schema: AdvancedCronJobV1alpha1Schema }],
};

/** SidecarSet (cluster-scoped): stored at v1beta1, served at v1alpha1 too, converted by kruise-manager. */
export const SidecarSetResource: KruiseResource = {
  ...served(KruiseResources.SidecarSet),
  shortNames: [],
  printerColumns: [
    count('MATCHED', '.status.matchedPods', 'The number of pods matched.'),
    count('UPDATED', '.status.updatedPods', 'The number of pods matched and updated.'),
    count('READY', '.status.readyPods', 'The number of pods matched and ready.'),
    AGE,
  ],
  schema: SidecarSetSchema,
  servedVersions: [{ version: 'v1alpha1', schema: SidecarSetV1alpha1Schema }],
};

/** PodUnavailableBudget (`policy.kruise.io/v1alpha1`, shortName pub). */
export const PodUnavailableBudgetResource: KruiseResource = {
  ...served(KruiseResources.PodUnavailableBudget),
  shortNames: ['pub'],
  printerColumns: [
    count(
      'Allowed',
      '.status.unavailableAllowed',
      'UnavailableAllowed number of pod unavailable that are currently allowed',
    ),
    count('Current', '.status.currentAvailable', 'CurrentAvailable current number of available pods'),
    count('Desired', '.status.desiredAvailable', 'DesiredAvailable minimum desired number of available pods'),
    count('Total', '.status.totalReplicas', 'TotalReplicas total number of pods counted by this budget'),
  ],
  schema: PodUnavailableBudgetSchema,
};

/** Every kind this project serves, in a stable order. */
export const KRUISE_RESOURCES: readonly KruiseResource[] = [
  AdvancedCronJobResource,
  BroadcastJobResource,
  CloneSetResource,
  ContainerRecreateRequestResource,
  DaemonSetResource,
  ImageListPullJobResource,
  ImagePullJobResource,
  NodeImageResource,
  PodUnavailableBudgetResource,
  SidecarSetResource,
  StatefulSetResource,
];
