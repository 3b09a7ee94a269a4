/**
 * The JSON shape of the core/v1 structs a pod template and a PersistentVolumeClaim are decoded into
 * by a Go controller (k8s.io/api v0.32, the version OpenKruise v1.9 builds with): per struct, its
 * fields in declaration order as `json:type`, where a trailing `!` marks a field without
 * `omitempty` and `...T` an inlined struct. Types: `s` string, `i` integer, `b` bool, `f` float,
 * `q` resource.Quantity, `ios` intstr.IntOrString, `t` metav1.Time, `raw` kept as is, `*T`
 * pointer, `[]T` slice, `{}T` map with string keys, otherwise a struct named here.
 *
 * Written from the Go type definitions; only the JSON names, types and omitempty flags matter.
 */
export const GO_CORE_STRUCTS: Record<string, string> = {
  AWSElasticBlockStoreVolumeSource: 'volumeID:s! fsType:s partition:i readOnly:b',
  Affinity: 'nodeAffinity:*NodeAffinity podAffinity:*PodAffinity podAntiAffinity:*PodAntiAffinity',
  AppArmorProfile: 'type:s! localhostProfile:*s',
  AzureDiskVolumeSource: 'diskName:s! diskURI:s! cachingMode:*s fsType:*s readOnly:*b kind:*s',
  AzureFileVolumeSource: 'secretName:s! shareName:s! readOnly:b',
  CSIVolumeSource:
    'driver:s! readOnly:*b fsType:*s volumeAttributes:{}s nodePublishSecretRef:*LocalObjectReference',
  Capabilities: 'add:[]s drop:[]s',
  CephFSVolumeSource: 'monitors:[]s! path:s user:s secretFile:s secretRef:*LocalObjectReference readOnly:b',
  CinderVolumeSource: 'volumeID:s! fsType:s readOnly:b secretRef:*LocalObjectReference',
  ClusterTrustBundleProjection: 'name:*s signerName:*s labelSelector:*LabelSelector optional:*b path:s!',
  ConfigMapEnvSource: '...LocalObjectReference optional:*b',
  ConfigMapKeySelector: '...LocalObjectReference key:s! optional:*b',
  ConfigMapProjection: '...LocalObjectReference items:[]KeyToPath optional:*b',
  ConfigMapVolumeSource: '...LocalObjectReference items:[]KeyToPath defaultMode:*i optional:*b',
  Container:
    'name:s! image:s command:[]s args:[]s workingDir:s ports:[]ContainerPort envFrom:[]EnvFromSource env:[]EnvVar resources:ResourceRequirements resizePolicy:[]ContainerResizePolicy restartPolicy:*s volumeMounts:[]VolumeMount volumeDevices:[]VolumeDevice livenessProbe:*Probe readinessProbe:*Probe startupProbe:*Probe lifecycle:*Lifecycle terminationMessagePath:s terminationMessagePolicy:s imagePullPolicy:s securityContext:*SecurityContext stdin:b stdinOnce:b tty:b',
  ContainerPort: 'name:s hostPort:i containerPort:i! protocol:s hostIP:s',
  ContainerResizePolicy: 'resourceName:s! restartPolicy:s!',
  DownwardAPIProjection: 'items:[]DownwardAPIVolumeFile',
  DownwardAPIVolumeFile:
    'path:s! fieldRef:*ObjectFieldSelector resourceFieldRef:*ResourceFieldSelector mode:*i',
  DownwardAPIVolumeSource: 'items:[]DownwardAPIVolumeFile defaultMode:*i',
  EmptyDirVolumeSource: 'medium:s sizeLimit:*q',
  EnvFromSource: 'prefix:s configMapRef:*ConfigMapEnvSource secretRef:*SecretEnvSource',
  EnvVar: 'name:s! value:s valueFrom:*EnvVarSource',
  EnvVarSource:
    'fieldRef:*ObjectFieldSelector resourceFieldRef:*ResourceFieldSelector configMapKeyRef:*ConfigMapKeySelector secretKeyRef:*SecretKeySelector',
  EphemeralContainer: '...EphemeralContainerCommon targetContainerName:s',
  EphemeralContainerCommon:
    'name:s! image:s command:[]s args:[]s workingDir:s ports:[]ContainerPort envFrom:[]EnvFromSource env:[]EnvVar resources:ResourceRequirements resizePolicy:[]ContainerResizePolicy restartPolicy:*s volumeMounts:[]VolumeMount volumeDevices:[]VolumeDevice livenessProbe:*Probe readinessProbe:*Probe startupProbe:*Probe lifecycle:*Lifecycle terminationMessagePath:s terminationMessagePolicy:s imagePullPolicy:s securityContext:*SecurityContext stdin:b stdinOnce:b tty:b',
  EphemeralVolumeSource: 'volumeClaimTemplate:*PersistentVolumeClaimTemplate',
  ExecAction: 'command:[]s',
  FCVolumeSource: 'targetWWNs:[]s lun:*i fsType:s readOnly:b wwids:[]s',
  FlexVolumeSource: 'driver:s! fsType:s secretRef:*LocalObjectReference readOnly:b options:{}s',
  FlockerVolumeSource: 'datasetName:s datasetUUID:s',
  GCEPersistentDiskVolumeSource: 'pdName:s! fsType:s partition:i readOnly:b',
  GRPCAction: 'port:i! service:*s!',
  GitRepoVolumeSource: 'repository:s! revision:s directory:s',
  GlusterfsVolumeSource: 'endpoints:s! path:s! readOnly:b',
  HTTPGetAction: 'path:s port:ios! host:s scheme:s httpHeaders:[]HTTPHeader',
  HTTPHeader: 'name:s! value:s!',
  HostAlias: 'ip:s! hostnames:[]s',
  HostPathVolumeSource: 'path:s! type:*s',
  ISCSIVolumeSource:
    'targetPortal:s! iqn:s! lun:i! iscsiInterface:s fsType:s readOnly:b portals:[]s chapAuthDiscovery:b chapAuthSession:b secretRef:*LocalObjectReference initiatorName:*s',
  ImageVolumeSource: 'reference:s pullPolicy:s',
  KeyToPath: 'key:s! path:s! mode:*i',
  LabelSelector: 'matchLabels:{}s matchExpressions:[]LabelSelectorRequirement',
  LabelSelectorRequirement: 'key:s! operator:s! values:[]s',
  Lifecycle: 'postStart:*LifecycleHandler preStop:*LifecycleHandler',
  LifecycleHandler: 'exec:*ExecAction httpGet:*HTTPGetAction tcpSocket:*TCPSocketAction sleep:*SleepAction',
  LocalObjectReference: 'name:s',
  ManagedFieldsEntry: 'manager:s operation:s apiVersion:s time:*t fieldsType:s fieldsV1:*raw subresource:s',
  ModifyVolumeStatus: 'targetVolumeAttributesClassName:s status:s!',
  NFSVolumeSource: 'server:s! path:s! readOnly:b',
  NodeAffinity:
    'requiredDuringSchedulingIgnoredDuringExecution:*NodeSelector preferredDuringSchedulingIgnoredDuringExecution:[]PreferredSchedulingTerm',
  NodeSelector: 'nodeSelectorTerms:[]NodeSelectorTerm!',
  NodeSelectorRequirement: 'key:s! operator:s! values:[]s',
  NodeSelectorTerm: 'matchExpressions:[]NodeSelectorRequirement matchFields:[]NodeSelectorRequirement',
  ObjectFieldSelector: 'apiVersion:s fieldPath:s!',
  ObjectMeta:
    'name:s generateName:s namespace:s selfLink:s uid:s resourceVersion:s generation:i creationTimestamp:t deletionTimestamp:*t deletionGracePeriodSeconds:*i labels:{}s annotations:{}s ownerReferences:[]OwnerReference finalizers:[]s managedFields:[]ManagedFieldsEntry',
  OwnerReference: 'apiVersion:s! kind:s! name:s! uid:s! controller:*b blockOwnerDeletion:*b',
  PersistentVolumeClaim:
    '...TypeMeta metadata:ObjectMeta spec:PersistentVolumeClaimSpec status:PersistentVolumeClaimStatus',
  PersistentVolumeClaimCondition: 'type:s! status:s! lastProbeTime:t lastTransitionTime:t reason:s message:s',
  PersistentVolumeClaimSpec:
    'accessModes:[]s selector:*LabelSelector resources:VolumeResourceRequirements volumeName:s storageClassName:*s volumeMode:*s dataSource:*TypedLocalObjectReference dataSourceRef:*TypedObjectReference volumeAttributesClassName:*s',
  PersistentVolumeClaimStatus:
    'phase:s accessModes:[]s capacity:{}q conditions:[]PersistentVolumeClaimCondition allocatedResources:{}q allocatedResourceStatuses:{}s currentVolumeAttributesClassName:*s modifyVolumeStatus:*ModifyVolumeStatus',
  PersistentVolumeClaimTemplate: 'metadata:ObjectMeta spec:PersistentVolumeClaimSpec!',
  PersistentVolumeClaimVolumeSource: 'claimName:s! readOnly:b',
  PhotonPersistentDiskVolumeSource: 'pdID:s! fsType:s',
  PodAffinity:
    'requiredDuringSchedulingIgnoredDuringExecution:[]PodAffinityTerm preferredDuringSchedulingIgnoredDuringExecution:[]WeightedPodAffinityTerm',
  PodAffinityTerm:
    'labelSelector:*LabelSelector namespaces:[]s topologyKey:s! namespaceSelector:*LabelSelector matchLabelKeys:[]s mismatchLabelKeys:[]s',
  PodAntiAffinity:
    'requiredDuringSchedulingIgnoredDuringExecution:[]PodAffinityTerm preferredDuringSchedulingIgnoredDuringExecution:[]WeightedPodAffinityTerm',
  PodDNSConfig: 'nameservers:[]s searches:[]s options:[]PodDNSConfigOption',
  PodDNSConfigOption: 'name:s value:*s',
  PodOS: 'name:s!',
  PodReadinessGate: 'conditionType:s!',
  PodResourceClaim: 'name:s! resourceClaimName:*s resourceClaimTemplateName:*s',
  PodSchedulingGate: 'name:s!',
  PodSecurityContext:
    'seLinuxOptions:*SELinuxOptions windowsOptions:*WindowsSecurityContextOptions runAsUser:*i runAsGroup:*i runAsNonRoot:*b supplementalGroups:[]i supplementalGroupsPolicy:*s fsGroup:*i sysctls:[]Sysctl fsGroupChangePolicy:*s seccompProfile:*SeccompProfile appArmorProfile:*AppArmorProfile seLinuxChangePolicy:*s',
  PodSpec:
    'volumes:[]Volume initContainers:[]Container containers:[]Container! ephemeralContainers:[]EphemeralContainer restartPolicy:s terminationGracePeriodSeconds:*i activeDeadlineSeconds:*i dnsPolicy:s nodeSelector:{}s serviceAccountName:s serviceAccount:s automountServiceAccountToken:*b nodeName:s hostNetwork:b hostPID:b hostIPC:b shareProcessNamespace:*b securityContext:*PodSecurityContext imagePullSecrets:[]LocalObjectReference hostname:s subdomain:s affinity:*Affinity schedulerName:s tolerations:[]Toleration hostAliases:[]HostAlias priorityClassName:s priority:*i dnsConfig:*PodDNSConfig readinessGates:[]PodReadinessGate runtimeClassName:*s enableServiceLinks:*b preemptionPolicy:*s overhead:{}q topologySpreadConstraints:[]TopologySpreadConstraint setHostnameAsFQDN:*b os:*PodOS hostUsers:*b schedulingGates:[]PodSchedulingGate resourceClaims:[]PodResourceClaim resources:*ResourceRequirements',
  PodTemplateSpec: 'metadata:ObjectMeta spec:PodSpec',
  PortworxVolumeSource: 'volumeID:s! fsType:s readOnly:b',
  PreferredSchedulingTerm: 'weight:i! preference:NodeSelectorTerm!',
  Probe:
    '...ProbeHandler initialDelaySeconds:i timeoutSeconds:i periodSeconds:i successThreshold:i failureThreshold:i terminationGracePeriodSeconds:*i',
  ProbeHandler: 'exec:*ExecAction httpGet:*HTTPGetAction tcpSocket:*TCPSocketAction grpc:*GRPCAction',
  ProjectedVolumeSource: 'sources:[]VolumeProjection! defaultMode:*i',
  QuobyteVolumeSource: 'registry:s! volume:s! readOnly:b user:s group:s tenant:s',
  RBDVolumeSource:
    'monitors:[]s! image:s! fsType:s pool:s user:s keyring:s secretRef:*LocalObjectReference readOnly:b',
  ResourceClaim: 'name:s! request:s',
  ResourceFieldSelector: 'containerName:s resource:s! divisor:q',
  ResourceRequirements: 'limits:{}q requests:{}q claims:[]ResourceClaim',
  SELinuxOptions: 'user:s role:s type:s level:s',
  ScaleIOVolumeSource:
    'gateway:s! system:s! secretRef:*LocalObjectReference! sslEnabled:b protectionDomain:s storagePool:s storageMode:s volumeName:s fsType:s readOnly:b',
  SeccompProfile: 'type:s! localhostProfile:*s',
  SecretEnvSource: '...LocalObjectReference optional:*b',
  SecretKeySelector: '...LocalObjectReference key:s! optional:*b',
  SecretProjection: '...LocalObjectReference items:[]KeyToPath optional:*b',
  SecretVolumeSource: 'secretName:s items:[]KeyToPath defaultMode:*i optional:*b',
  SecurityContext:
    'capabilities:*Capabilities privileged:*b seLinuxOptions:*SELinuxOptions windowsOptions:*WindowsSecurityContextOptions runAsUser:*i runAsGroup:*i runAsNonRoot:*b readOnlyRootFilesystem:*b allowPrivilegeEscalation:*b procMount:*s seccompProfile:*SeccompProfile appArmorProfile:*AppArmorProfile',
  ServiceAccountTokenProjection: 'audience:s expirationSeconds:*i path:s!',
  SleepAction: 'seconds:i!',
  StorageOSVolumeSource: 'volumeName:s volumeNamespace:s fsType:s readOnly:b secretRef:*LocalObjectReference',
  Sysctl: 'name:s! value:s!',
  TCPSocketAction: 'port:ios! host:s',
  Toleration: 'key:s operator:s value:s effect:s tolerationSeconds:*i',
  TopologySpreadConstraint:
    'maxSkew:i! topologyKey:s! whenUnsatisfiable:s! labelSelector:*LabelSelector minDomains:*i nodeAffinityPolicy:*s nodeTaintsPolicy:*s matchLabelKeys:[]s',
  TypeMeta: 'kind:s apiVersion:s',
  TypedLocalObjectReference: 'apiGroup:*s! kind:s! name:s!',
  TypedObjectReference: 'apiGroup:*s! kind:s! name:s! namespace:*s',
  Volume: 'name:s! ...VolumeSource',
  VolumeDevice: 'name:s! devicePath:s!',
  VolumeMount:
    'name:s! readOnly:b recursiveReadOnly:*s mountPath:s! subPath:s mountPropagation:*s subPathExpr:s',
  VolumeProjection:
    'secret:*SecretProjection downwardAPI:*DownwardAPIProjection configMap:*ConfigMapProjection serviceAccountToken:*ServiceAccountTokenProjection clusterTrustBundle:*ClusterTrustBundleProjection',
  VolumeResourceRequirements: 'limits:{}q requests:{}q',
  VolumeSource:
    'hostPath:*HostPathVolumeSource emptyDir:*EmptyDirVolumeSource gcePersistentDisk:*GCEPersistentDiskVolumeSource awsElasticBlockStore:*AWSElasticBlockStoreVolumeSource gitRepo:*GitRepoVolumeSource secret:*SecretVolumeSource nfs:*NFSVolumeSource iscsi:*ISCSIVolumeSource glusterfs:*GlusterfsVolumeSource persistentVolumeClaim:*PersistentVolumeClaimVolumeSource rbd:*RBDVolumeSource flexVolume:*FlexVolumeSource cinder:*CinderVolumeSource cephfs:*CephFSVolumeSource flocker:*FlockerVolumeSource downwardAPI:*DownwardAPIVolumeSource fc:*FCVolumeSource azureFile:*AzureFileVolumeSource configMap:*ConfigMapVolumeSource vsphereVolume:*VsphereVirtualDiskVolumeSource quobyte:*QuobyteVolumeSource azureDisk:*AzureDiskVolumeSource photonPersistentDisk:*PhotonPersistentDiskVolumeSource projected:*ProjectedVolumeSource portworxVolume:*PortworxVolumeSource scaleIO:*ScaleIOVolumeSource storageos:*StorageOSVolumeSource csi:*CSIVolumeSource ephemeral:*EphemeralVolumeSource image:*ImageVolumeSource',
  VsphereVirtualDiskVolumeSource: 'volumePath:s! fsType:s storagePolicyName:s storagePolicyID:s',
  WeightedPodAffinityTerm: 'weight:i! podAffinityTerm:PodAffinityTerm!',
  WindowsSecurityContextOptions:
    'gmsaCredentialSpecName:*s gmsaCredentialSpec:*s runAsUserName:*s hostProcess:*b',
};
