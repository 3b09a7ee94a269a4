import { type Static, Type } from '@sinclair/typebox';
import { ObjectReferenceSchema, SandboxConfigSchema, typeMetaFields } from './common.ts';
import { Int32, Int64, MapOf, Str, Time } from './primitives.ts';

/** How an image tag is pulled on a node. */
export const ImageTagPullPolicySchema = Type.Object({
  timeoutSeconds: Type.Optional(Int32('Specifies the timeout of the pulling task. Defaults to 600')),
  backoffLimit: Type.Optional(
    Int32('Specifies the number of retries before marking the pulling task failed. Defaults to 3'),
  ),
  ttlSecondsAfterFinished: Type.Optional(
    Int32('TTLSecondsAfterFinished limits the lifetime of a pulling task that has finished execution.'),
  ),
  activeDeadlineSeconds: Type.Optional(
    Int64(
      'ActiveDeadlineSeconds specifies the duration in seconds relative to the startTime that the task may be active.',
    ),
  ),
});
export type ImageTagPullPolicy = Static<typeof ImageTagPullPolicySchema>;

/** A secret the daemon may use, always in the daemon's config namespace for job-made copies. */
export const ReferenceObjectSchema = Type.Object({
  namespace: Type.Optional(Str()),
  name: Type.Optional(Str()),
  mode: Type.Optional(Str('Mode of the reference; "batch" marks a shared copy managed by ImagePullJobs.')),
});
export type ReferenceObject = Static<typeof ReferenceObjectSchema>;

/** One tag (or digest) of an image a node should hold. */
export const ImageTagSpecSchema = Type.Object({
  tag: Str('Specifies the image tag'),
  createdAt: Type.Optional(Time('Specifies the create time of this tag')),
  pullPolicy: Type.Optional(ImageTagPullPolicySchema),
  ownerReferences: Type.Optional(Type.Array(ObjectReferenceSchema)),
  version: Type.Optional(Int64('The internal version of this tag; a bump starts a new pull round.')),
  imagePullPolicy: Type.Optional(
    Str('Image pull policy. One of Always, IfNotPresent. Defaults to IfNotPresent.'),
  ),
});
export type ImageTagSpec = Static<typeof ImageTagSpecSchema>;

/** The pull spec of one image on a node. */
export const ImageSpecSchema = Type.Object({
  pullSecrets: Type.Optional(Type.Array(ReferenceObjectSchema)),
  tags: Type.Array(ImageTagSpecSchema),
  sandboxConfig: Type.Optional(SandboxConfigSchema),
});
export type ImageSpec = Static<typeof ImageSpecSchema>;

/** Phase of one tag's pull on a node. */
export type ImagePullPhase = 'Waiting' | 'Pulling' | 'Succeeded' | 'Failed';

/** The pull status of one tag. */
export const ImageTagStatusSchema = Type.Object({
  tag: Str('Represents the image tag.'),
  phase: Type.Unsafe<ImagePullPhase>({
    type: 'string',
    description: 'Represents the image pulling task phase.',
  }),
  progress: Type.Optional(Int32('Represents the pulling progress of this tag, which is between 0-100.')),
  startTime: Type.Optional(Time()),
  completionTime: Type.Optional(Time()),
  version: Type.Optional(Int64('Represents the internal version of this tag that the daemon handled.')),
  imageID: Type.Optional(Str('Represents the ID of this image.')),
  message: Type.Optional(Str('Represents the summary information of this node')),
});
export type ImageTagStatus = Static<typeof ImageTagStatusSchema>;

export const ImageStatusSchema = Type.Object({ tags: Type.Array(ImageTagStatusSchema) });
export type ImageStatus = Static<typeof ImageStatusSchema>;

export const NodeImageSpecSchema = Type.Object({
  images: Type.Optional(MapOf(ImageSpecSchema, 'Specifies images to be pulled on this node')),
});
export type NodeImageSpec = Static<typeof NodeImageSpecSchema>;

export const NodeImageStatusSchema = Type.Object({
  desired: Int32('The desired number of pulling tasks'),
  succeeded: Type.Optional(Int32()),
  failed: Type.Optional(Int32()),
  pulling: Type.Optional(Int32()),
  waiting: Type.Optional(Int32()),
  imageStatuses: Type.Optional(MapOf(ImageStatusSchema)),
  firstSyncStatus: Type.Optional(
    Type.Object({
      syncAt: Type.Optional(Time()),
      status: Type.Optional(Str()),
      message: Type.Optional(Str()),
    }),
  ),
});
export type NodeImageStatus = Static<typeof NodeImageStatusSchema>;

/** NodeImage: the images one node should hold, and what its daemon reports. */
export const NodeImageSchema = Type.Object({
  ...typeMetaFields,
  spec: Type.Optional(NodeImageSpecSchema),
  status: Type.Optional(NodeImageStatusSchema),
});
export type NodeImage = Static<typeof NodeImageSchema>;
