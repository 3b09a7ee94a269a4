/** The TypeBox schemas, resource definitions and CRD rendering (build and test time). */
export * from './crd.ts';
export { GENERATED_HEADER, renderCrdFiles } from './generate/crd-files.ts';
export * from './resources.ts';
export * from './schema/advancedcronjob.ts';
export * from './schema/broadcastjob.ts';
export * from './schema/cloneset.ts';
export * from './schema/common.ts';
export * from './schema/containerrecreaterequest.ts';
export * from './schema/daemonset.ts';
export * from './schema/imagelistpulljob.ts';
export * from './schema/imagepulljob.ts';
export * from './schema/nodeimage.ts';
export * from './schema/podunavailablebudget.ts';
export * from './schema/pub.ts';
export * from './schema/sidecarset.ts';
export * from './schema/statefulset.ts';
export { shapeError } from './shape.ts';
