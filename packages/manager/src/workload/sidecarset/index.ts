export * from './hash.ts';
export * from './hot-upgrade.ts';
export * from './keys.ts';
export * from './match.ts';
export * from './native.ts';
export * from './patch-metadata.ts';
export * from './pod-hash.ts';
export * from './revision-data.ts';
