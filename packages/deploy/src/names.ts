/** Names of the installed objects, as upstream's chart names them where it has them. */
export const NAMES = {
  namespace: 'kruise-system',
  daemonConfigNamespace: 'kruise-daemon-config',
  managerServiceAccount: 'kruise-manager',
  daemonServiceAccount: 'kruise-daemon',
  managerDeployment: 'kruise-controller-manager',
  daemonSet: 'kruise-daemon',
  webhookService: 'kruise-webhook-service',
  webhookSecret: 'kruise-webhook-certs',
  leaderElectionLease: 'kruise-manager',
  managerImage: 'kruise-nodejs/kruise-manager:0.1.0',
  daemonImage: 'kruise-nodejs/kruise-daemon:0.1.0',
  /** Labels the manager's pods carry (the webhook Service selects them). */
  managerLabels: { 'control-plane': 'controller-manager' },
  daemonLabels: { 'control-plane': 'daemon' },
} as const;

/** Feature gates the shipped manifests enable (as upstream's Helm chart does). */
export const DEPLOY_FEATURE_GATES = 'ImagePullJobGate=true';
