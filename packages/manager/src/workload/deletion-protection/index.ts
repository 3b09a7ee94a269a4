export * from './check.ts';
export * from './crd.ts';
export * from './namespace.ts';
