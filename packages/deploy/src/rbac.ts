import { NAMES } from './names.ts';
import { DEFAULTS, type ValueSource } from './value-source.ts';

/** One RBAC PolicyRule. */
export interface PolicyRule {
  apiGroups: string[];
  resources: string[];
  verbs: string[];
  resourceNames?: string[];
}

/** What an informer needs. */
const WATCH = ['list', 'watch'];
const rule = (
  apiGroups: string[],
  resources: string[],
  verbs: string[],
  resourceNames?: string[],
): PolicyRule => ({
  apiGroups,
  resources,
  verbs,
  ...(resourceNames ? { resourceNames } : {}),
});

/**
 * kruise-manager across the cluster. Each rule is used by the end-to-end RBAC test's scenarios
 * (the test fails on an unused rule) unless its comment says why it is kept anyway.
 */
export const MANAGER_CLUSTER_RULES: PolicyRule[] = [
  // NodeImage controller: one per Node, deleted with it; ImagePullJob controller writes tags into them.
  rule(['apps.kruise.io'], ['nodeimages'], [...WATCH, 'get', 'create', 'update', 'delete']),
  rule(['apps.kruise.io'], ['nodeimages/status'], ['update']),
  // ImagePullJob controller: finalizer, TTL deletion; ImageListPullJob controller creates the children.
  rule(['apps.kruise.io'], ['imagepulljobs'], [...WATCH, 'create', 'patch', 'delete']),
  rule(['apps.kruise.io'], ['imagepulljobs/status'], ['update']),
  // ImageListPullJob controller: the template-hash label, status roll-up.
  rule(['apps.kruise.io'], ['imagelistpulljobs'], [...WATCH, 'patch']),
  rule(['apps.kruise.io'], ['imagelistpulljobs/status'], ['update']),
  // ContainerRecreateRequest controller: labels, annotations, finalizer, completion, TTL deletion.
  rule(['apps.kruise.io'], ['containerrecreaterequests'], [...WATCH, 'patch', 'delete']),
  rule(['apps.kruise.io'], ['containerrecreaterequests/status'], ['patch']),
  // Secret copies go only into an existing, not terminating kruise-daemon-config.
  rule([''], ['namespaces'], ['get'], [NAMES.daemonConfigNamespace]),
  // NodeImages follow Nodes; the CRR webhook reads the pod's Node (get: when not cached yet).
  rule([''], ['nodes'], [...WATCH, 'get']),
  // podSelector jobs and CRRs read pods; CRRs hold pods not-ready through KruisePodReady.
  rule([''], ['pods'], [...WATCH, 'get']),
  rule([''], ['pods/status'], ['update']),
  // CloneSet controller: its pods (create, in-place update, lifecycle and specified-delete patches,
  // delete), its status and podsToDelete, its revisions (rollback renumbers, history is truncated,
  // pre-download labels them) and PVCs from volumeClaimTemplates.
  rule([''], ['pods'], ['create', 'update', 'patch', 'delete']),
  // … and in-place cpu/memory changes, which Kubernetes takes only through pods/resize.
  rule([''], ['pods/resize'], ['patch']),
  rule(['apps.kruise.io'], ['clonesets'], [...WATCH, 'get', 'update']),
  rule(['apps.kruise.io'], ['clonesets/status'], ['update']),
  rule(['apps'], ['controllerrevisions'], [...WATCH, 'create', 'update', 'patch', 'delete']),
  rule([''], ['persistentvolumeclaims'], ['list', 'create', 'update', 'delete']),
  // Advanced StatefulSet controller: its pods (rules above), its status, a fresh read before it
  // adopts an orphan pod (and after a status conflict), its claims: watched, created (above), their
  // owners kept to persistentVolumeClaimRetentionPolicy and their size to the templates (patch);
  // storage classes say whether a claim may grow (gate StatefulSetAutoResizePVCGate).
  rule(['apps.kruise.io'], ['statefulsets'], [...WATCH, 'get']),
  rule(['apps.kruise.io'], ['statefulsets/status'], ['update']),
  rule([''], ['persistentvolumeclaims'], ['watch', 'patch']),
  rule(['storage.k8s.io'], ['storageclasses'], WATCH),
  // Advanced DaemonSet controller: its pods and revisions (rules above), its status, a fresh read
  // before it adopts an orphan pod (and after a status conflict); Nodes decide placement (above).
  rule(['apps.kruise.io'], ['daemonsets'], [...WATCH, 'get']),
  rule(['apps.kruise.io'], ['daemonsets/status'], ['update']),
  // BroadcastJob controller: its pods (rules above), spec.paused on a failure with policy Pause,
  // TTL deletion, its status.
  rule(['apps.kruise.io'], ['broadcastjobs'], [...WATCH, 'patch', 'delete']),
  rule(['apps.kruise.io'], ['broadcastjobs/status'], ['update']),
  // Container launch priority: the pod's `<pod>-barrier` ConfigMap (read uncached, created, keys
  // added); the completed annotation goes on the pod (pods patch above).
  rule([''], ['configmaps'], ['get', 'create', 'patch']),
  // AdvancedCronJob controller: its status, and the runs it creates on schedule and deletes
  // (concurrencyPolicy Replace, history limits): Jobs, BroadcastJobs, ImageListPullJobs (their
  // watch, and the deletion of BroadcastJobs, are granted to their own controllers above).
  rule(['apps.kruise.io'], ['advancedcronjobs'], WATCH),
  rule(['apps.kruise.io'], ['advancedcronjobs/status'], ['update']),
  rule(['batch'], ['jobs'], [...WATCH, 'create', 'delete']),
  rule(['apps.kruise.io'], ['broadcastjobs'], ['create']),
  rule(['apps.kruise.io'], ['imagelistpulljobs'], ['create', 'delete']),
  // SidecarTerminator (gate SidecarTerminator): the `sidecar-termination-<podUID>` request that
  // kills a finished job pod's sidecars, and the phase and SidecarTerminated condition of a pod with
  // ignore-exit-code sidecars (a strategic merge patch of its status); pods, Nodes and requests are
  // read from the caches above, a virtual-kubelet sidecar's image is replaced by a pod update (above).
  rule(['apps.kruise.io'], ['containerrecreaterequests'], ['create']),
  rule([''], ['pods/status'], ['patch']),
  // ImagePullJobs name pull secrets in their own namespaces; copies go to kruise-daemon-config (Role below).
  rule([''], ['secrets'], [...WATCH, 'get']),
  // SidecarSet validating webhook: the other SidecarSets (conflicts; list below), a pinned
  // injection revision in the Kruise namespace by name (by customVersion: list above), the
  // kruise-configuration patchPodMetadata whitelist (configmaps get above).
  rule(['apps'], ['controllerrevisions'], ['get']),
  // Events on jobs, NodeImages and pods (a repeated event is patched into a count).
  rule([''], ['events'], ['create', 'patch']),
  // SidecarSets: the pod webhook's injection (every replica) and the controller read them and the
  // labels of the namespaces their namespaceSelectors match from caches; pinned revisions from the
  // ControllerRevision cache (watched above). The controller writes their status; matched pods are
  // read fresh, updated in place and given SidecarSetUpgradable (pod rules above); revisions live
  // in the Kruise namespace (above; patch: a customVersion label).
  rule(['apps.kruise.io'], ['sidecarsets'], WATCH),
  rule(['apps.kruise.io'], ['sidecarsets/status'], ['update']),
  rule([''], ['namespaces'], WATCH),
  // Controller finder (workload/controllerfinder: PodUnavailableBudget, WorkloadSpread,
  // UnitedDeployment, PersistentPodState): the workloads a pod's controller reference or a
  // targetRef names, from caches (CloneSets and Advanced StatefulSets: watched above); any other
  // kind through its scale subresource, else the object itself (its uid and metadata), read
  // uncached; the kruise-configuration whitelist (configmaps get above).
  rule(['apps'], ['deployments', 'replicasets', 'statefulsets'], WATCH),
  rule([''], ['replicationcontrollers'], WATCH),
  rule(['*'], ['*/scale'], ['get']),
  rule(['*'], ['*'], ['get']),
  // PodUnavailableBudgets: the pod webhooks (every replica) and the controller read them from a
  // cache; each allowed disruption and the controller's counts are written to their status (the
  // webhook re-reads one after a conflicting write); the PUB webhook lists a namespace's budgets;
  // the controller marks covered pods kruise.io/related-pub (pod patch above).
  rule(['policy.kruise.io'], ['podunavailablebudgets'], [...WATCH, 'get']),
  rule(['policy.kruise.io'], ['podunavailablebudgets/status'], ['update']),
  // Certificate manager: caBundle into kruise's two webhook configurations.
  rule(
    ['admissionregistration.k8s.io'],
    ['mutatingwebhookconfigurations', 'validatingwebhookconfigurations'],
    ['get', 'update'],
    ['kruise-mutating-webhook-configuration', 'kruise-validating-webhook-configuration'],
  ),
  // Certificate manager: watches CRDs and gives apps.kruise.io ones with Webhook conversion (the
  // Advanced StatefulSet's) the caBundle and the webhook Service, again whenever one is re-applied.
  rule(['apiextensions.k8s.io'], ['customresourcedefinitions'], [...WATCH, 'patch']),
];

/** kruise-manager in its own namespace: the leader Lease and the webhook certificates Secret. */
export const MANAGER_NAMESPACE_RULES: PolicyRule[] = [
  rule(['coordination.k8s.io'], ['leases'], ['create']),
  rule(['coordination.k8s.io'], ['leases'], ['get', 'update'], [NAMES.leaderElectionLease]),
  rule([''], ['secrets'], ['get', 'update'], [NAMES.webhookSecret]),
];

/** kruise-manager in kruise-daemon-config: the shared copies of pull secrets. */
export const MANAGER_DAEMON_CONFIG_RULES: PolicyRule[] = [
  rule([''], ['secrets'], ['create', 'update', 'delete']),
];

/** kruise-daemon across the cluster. */
export const DAEMON_CLUSTER_RULES: PolicyRule[] = [
  // Image puller: its node's NodeImage and its status.
  rule(['apps.kruise.io'], ['nodeimages'], WATCH),
  rule(['apps.kruise.io'], ['nodeimages/status'], ['patch']),
  // CRR executor: the active requests of its node, and their status.
  rule(['apps.kruise.io'], ['containerrecreaterequests'], WATCH),
  rule(['apps.kruise.io'], ['containerrecreaterequests/status'], ['patch']),
  // CRR executor: the pod's IP for httpGet/tcpSocket preStop hooks; containermeta (gate
  // DaemonWatchingPod): the pods of its node, and runtime-containers-meta through their status.
  rule([''], ['pods'], ['get', 'list', 'watch']),
  rule([''], ['pods/status'], ['patch']),
  // PullImageSucceed/PullImageFailed and Killing events (a repeated event is patched into a count).
  rule([''], ['events'], ['create', 'patch']),
];

/** kruise-daemon in kruise-daemon-config: the only secrets it may read. */
export const DAEMON_CONFIG_RULES: PolicyRule[] = [rule([''], ['secrets'], ['get'])];

/** A granted verb the RBAC end-to-end test's scenarios do not exercise, and why it is granted. */
export interface JustifiedGrant {
  role: string;
  resource: string;
  verb: string;
  why: string;
}

/** Grants kept although the scenarios do not use them (the RBAC test accepts exactly these). */
export const JUSTIFIED_UNUSED: JustifiedGrant[] = [
  {
    role: 'kruise-manager-role',
    resource: 'podunavailablebudgets',
    verb: 'get',
    why: 'a pod webhook reads a budget fresh after its status write conflicted with another writer (a second replica, or the controller at the same moment)',
  },
  {
    role: 'kruise-manager-role',
    resource: 'nodeimages',
    verb: 'get',
    why: "an image pull job reads a NodeImage fresh only after its update from the cached copy conflicted (the daemon's status write, or a second job, at the same moment)",
  },
  {
    role: 'kruise-manager-role',
    resource: 'nodes',
    verb: 'get',
    why: 'the CRR webhook reads a Node the cache does not hold yet',
  },
  {
    role: 'kruise-daemon-role',
    resource: 'pods',
    verb: 'get',
    why: "the pod's IP for an httpGet or tcpSocket preStop hook (the scenarios use exec)",
  },
  {
    role: 'kruise-manager-role',
    resource: 'pods/resize',
    verb: 'patch',
    why: 'in-place cpu/memory changes of CloneSet pods (gate InPlaceWorkloadVerticalScaling, off in deploy/)',
  },
  {
    role: 'kruise-manager-role',
    resource: 'controllerrevisions',
    verb: 'patch',
    why: 'labels a CloneSet revision pre-downloaded or ignored (gate PreDownloadImageForInPlaceUpdate, off in deploy/), or a SidecarSet revision with a changed customVersion',
  },
  {
    role: 'kruise-manager-role',
    resource: 'storageclasses',
    verb: 'list',
    why: 'whether a claim may grow (gate StatefulSetAutoResizePVCGate, off in deploy/)',
  },
  {
    role: 'kruise-manager-role',
    resource: 'storageclasses',
    verb: 'watch',
    why: 'whether a claim may grow (gate StatefulSetAutoResizePVCGate, off in deploy/)',
  },
  {
    role: 'kruise-manager-role',
    resource: 'events',
    verb: 'patch',
    why: 'only a repeated event is patched (into its count)',
  },
  {
    role: 'kruise-daemon-role',
    resource: 'events',
    verb: 'patch',
    why: 'only a repeated event is patched (into its count)',
  },
];

const role = (kind: 'ClusterRole' | 'Role', name: string, rules: PolicyRule[], namespace?: string) => ({
  apiVersion: 'rbac.authorization.k8s.io/v1',
  kind,
  metadata: { name, ...(namespace ? { namespace } : {}) },
  rules,
});

/**
 * A role with its rules and the binding that grants it to a ServiceAccount of installation.namespace
 * (`<role>binding`): a ClusterRole cluster-wide, or a Role in `namespace`.
 */
const grant = (
  v: ValueSource,
  roleKind: 'ClusterRole' | 'Role',
  roleName: string,
  rules: PolicyRule[],
  serviceAccount: string,
  namespace?: string,
) => [
  role(roleKind, roleName, rules, namespace),
  {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: roleKind === 'ClusterRole' ? 'ClusterRoleBinding' : 'RoleBinding',
    metadata: { name: `${roleName}binding`, ...(namespace ? { namespace } : {}) },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: roleKind, name: roleName },
    subjects: [
      { kind: 'ServiceAccount', name: serviceAccount, namespace: v.scalar('installation.namespace') },
    ],
  },
];

/** A ServiceAccount of installation.namespace, with serviceAccount.annotations. */
const serviceAccount = (v: ValueSource, name: string) => ({
  apiVersion: 'v1',
  kind: 'ServiceAccount',
  metadata: {
    name,
    namespace: v.scalar('installation.namespace'),
    ...v.optional('annotations', 'serviceAccount.annotations'),
  },
});

/** kruise-manager's ServiceAccount, roles and bindings. */
export function managerRbac(v: ValueSource = DEFAULTS): object[] {
  const sa = NAMES.managerServiceAccount;
  return [
    serviceAccount(v, sa),
    ...grant(v, 'ClusterRole', 'kruise-manager-role', MANAGER_CLUSTER_RULES, sa),
    ...grant(
      v,
      'Role',
      'kruise-manager-role',
      MANAGER_NAMESPACE_RULES,
      sa,
      v.scalar<string>('installation.namespace'),
    ),
    ...grant(
      v,
      'Role',
      'kruise-manager-secrets-role',
      MANAGER_DAEMON_CONFIG_RULES,
      sa,
      NAMES.daemonConfigNamespace,
    ),
  ];
}

/** kruise-daemon's ServiceAccount, roles and bindings. */
export function daemonRbac(v: ValueSource = DEFAULTS): object[] {
  const sa = NAMES.daemonServiceAccount;
  return [
    serviceAccount(v, sa),
    ...grant(v, 'ClusterRole', 'kruise-daemon-role', DAEMON_CLUSTER_RULES, sa),
    ...grant(v, 'Role', 'kruise-daemon-secret-role', DAEMON_CONFIG_RULES, sa, NAMES.daemonConfigNamespace),
  ];
}
