export * from './client.ts';
export * from './errors.ts';
export { criServices, protoDir } from './proto.ts';
