import { type Static, Type } from '@sinclair/typebox';
import { Int32, Int64, IntOrString, PreservedObject, Str, StringMap } from './primitives.ts';

/** metav1.LabelSelectorRequirement. */
export const LabelSelectorRequirementSchema = Type.Object({
  key: Str('key is the label key that the selector applies to.'),
  operator: Str(
    "operator represents a key's relationship to a set of values: In, NotIn, Exists and DoesNotExist.",
  ),
  values: Type.Optional(Type.Array(Type.String())),
});
export type LabelSelectorRequirement = Static<typeof LabelSelectorRequirementSchema>;

/** The inlined fields of metav1.LabelSelector. */
export const labelSelectorFields = {
  matchLabels: Type.Optional(StringMap('matchLabels is a map of {key,value} pairs.')),
  matchExpressions: Type.Optional(
    Type.Array(LabelSelectorRequirementSchema, {
      description: 'matchExpressions is a list of label selector requirements.',
    }),
  ),
};

/** metav1.LabelSelector. */
export const LabelSelectorSchema = Type.Object(labelSelectorFields);
export type LabelSelector = Static<typeof LabelSelectorSchema>;

/** core/v1 ObjectReference. */
export const ObjectReferenceSchema = Type.Object({
  apiVersion: Type.Optional(Str()),
  fieldPath: Type.Optional(Str()),
  kind: Type.Optional(Str()),
  name: Type.Optional(Str()),
  namespace: Type.Optional(Str()),
  resourceVersion: Type.Optional(Str()),
  uid: Type.Optional(Str()),
});
export type ObjectReference = Static<typeof ObjectReferenceSchema>;

/** Metadata attached to the CRI PullImage sandbox config. */
export const SandboxConfigSchema = Type.Object(
  {
    labels: Type.Optional(StringMap()),
    annotations: Type.Optional(StringMap()),
  },
  { description: 'SandboxConfig support attach metadata in PullImage CRI interface during ImagePulljobs' },
);
export type SandboxConfig = Static<typeof SandboxConfigSchema>;

/** Pull parameters of a job (timeout and retries). */
export const PullPolicySchema = Type.Object({
  timeoutSeconds: Type.Optional(Int32('Specifies the timeout of the pulling task. Defaults to 600')),
  backoffLimit: Type.Optional(
    Int32('Specifies the number of retries before marking the pulling task failed. Defaults to 3'),
  ),
});
export type PullPolicy = Static<typeof PullPolicySchema>;

/** core/v1 ContainerPort. */
export const ContainerPortSchema = Type.Object({
  containerPort: Int32(),
  hostIP: Type.Optional(Str()),
  hostPort: Type.Optional(Int32()),
  name: Type.Optional(Str()),
  protocol: Type.Optional(Str()),
});
export type ContainerPort = Static<typeof ContainerPortSchema>;

/** A lifecycle handler: exec, httpGet or tcpSocket. */
export const ProbeHandlerSchema = Type.Object({
  exec: Type.Optional(Type.Object({ command: Type.Optional(Type.Array(Type.String())) })),
  httpGet: Type.Optional(
    Type.Object({
      host: Type.Optional(Str()),
      httpHeaders: Type.Optional(Type.Array(Type.Object({ name: Str(), value: Str() }))),
      path: Type.Optional(Str()),
      port: IntOrString(),
      scheme: Type.Optional(Str()),
    }),
  ),
  tcpSocket: Type.Optional(Type.Object({ host: Type.Optional(Str()), port: IntOrString() })),
});
export type ProbeHandler = Static<typeof ProbeHandlerSchema>;

/** The subset of metav1.ObjectMeta our code reads and writes. */
export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  deletionGracePeriodSeconds?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  finalizers?: string[];
  ownerReferences?: OwnerReference[];
  [extra: string]: unknown;
}

/** metav1.OwnerReference. */
export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

/** The schema of `metadata` inside a CRD: the API server validates it itself. */
export const ObjectMetaSchema = Type.Unsafe<ObjectMeta>({ type: 'object' });

/** Fields every top-level Kruise object has. */
export const typeMetaFields = {
  apiVersion: Type.Optional(
    Str('APIVersion defines the versioned schema of this representation of an object.'),
  ),
  kind: Type.Optional(Str('Kind is a string value representing the REST resource this object represents.')),
  metadata: Type.Optional(ObjectMetaSchema),
};

export { Int32, Int64, PreservedObject };
