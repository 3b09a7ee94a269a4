/** Upstream's defaults of an Advanced StatefulSet's rolling update (what the defaulting webhook stores). */
export const DEFAULT_ROLLING_UPDATE = {
  partition: 0,
  maxUnavailable: 1,
  podUpdatePolicy: 'ReCreate',
  minReadySeconds: 0,
} as const;
