export type { WebhookCall } from './admission/admission.ts';
export type { AuditRecord } from './audit.ts';
export { AuditTrail } from './audit.ts';
export { type CertificatePair, createServingPki } from './pki.ts';
export { ControlPlane, type ControlPlaneOptions } from './server.ts';
