/**
 * Where the API server sends the ConversionReviews of a multi-version Kruise kind: kruise-manager's
 * webhook Service, at upstream's path. kruise-manager writes its CA bundle into each such CRD (and
 * its Service's namespace and name, when it runs under others).
 */
export const CONVERSION_WEBHOOK = {
  namespace: 'kruise-system',
  name: 'kruise-webhook-service',
  path: '/convert',
} as const;
