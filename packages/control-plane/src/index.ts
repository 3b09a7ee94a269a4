export type { AuditRecord } from './audit.ts';
export { AuditTrail } from './audit.ts';
export { type ControlPlaneOptions, ControlPlane } from './server.ts';
