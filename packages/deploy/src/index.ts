export * from './names.ts';
export * from './objects.ts';
export * from './rbac.ts';
export * from './render.ts';
export * from './workloads.ts';
