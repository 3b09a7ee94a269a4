/** Kruise's configuration ConfigMap (`kruise-configuration`) and what its keys hold. */
export * from './custom-workload-whitelist.ts';
export * from './kruise-configuration.ts';
