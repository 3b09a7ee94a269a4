export * from './check.ts';
export * from './resource-version.ts';
export * from './scale.ts';
export * from './timeout.ts';
export * from './update.ts';
