export * from './history.ts';
export * from './payload.ts';
export * from './pod-revision.ts';
