import { FEATURE_DEFAULTS } from '@kruise/api';
import { featureGateFlagPattern } from '@kruise/kube-compat/feature-gate-parser';
import { DEPLOY_FEATURE_GATES, NAMES } from './names.ts';

const [managerRepository, managerTag] = NAMES.managerImage.split(':') as [string, string];
const [daemonRepository, daemonTag] = NAMES.daemonImage.split(':') as [string, string];

/** The log levels kruise-manager and kruise-daemon accept in `LOG_LEVEL` (pino's). */
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace'] as const;

/**
 * The Helm chart's values with their defaults: upstream's (openkruise/charts, kruise 1.9) names
 * and defaults where a value applies to this implementation. `deploy/` is rendered from exactly
 * these defaults, so `helm template` with default values gives the objects of deploy/kruise.yaml.
 */
export const CHART_VALUES = {
  crds: { managed: true, keepOnUninstall: true },
  installation: { namespace: NAMES.namespace as string, createNamespace: true },
  featureGates: DEPLOY_FEATURE_GATES as string,
  imagePullSecrets: [] as object[],
  manager: {
    log: { level: 'info' },
    replicas: 2,
    image: { repository: managerRepository, tag: managerTag },
    webhook: { port: 9876 },
    metrics: { port: 8080 },
    healthProbe: { port: 8000 },
    resources: { limits: { cpu: '200m', memory: '512Mi' }, requests: { cpu: '100m', memory: '256Mi' } },
    hostNetwork: false,
    nodeAffinity: {} as object,
    nodeSelector: {} as object,
    tolerations: [] as object[],
  },
  webhookConfiguration: { failurePolicy: { pods: 'Fail' }, timeoutSeconds: 30 },
  daemon: {
    log: { level: 'info' },
    image: { repository: daemonRepository, tag: daemonTag },
    port: 10221,
    socketLocation: '/var/run',
    nodeSelector: {} as object,
    affinity: {
      nodeAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: {
          nodeSelectorTerms: [
            { matchExpressions: [{ key: 'type', operator: 'NotIn', values: ['virtual-kubelet'] }] },
          ],
        },
      },
    } as object,
    resources: { limits: { cpu: '50m', memory: '128Mi' }, requests: { cpu: '0', memory: '0' } },
    extraEnvs: [] as object[],
  },
  serviceAccount: { annotations: {} as Record<string, string> },
};

/** A dotted path into CHART_VALUES, e.g. `manager.replicas`. */
export type ValuePath = string;

/** What each value does: values.yaml's comments and values.schema.json's descriptions. */
export const VALUE_DESCRIPTIONS: Record<ValuePath, string> = {
  'crds.managed': 'install and upgrade the CRDs with the chart',
  'crds.keepOnUninstall':
    'helm uninstall keeps the CRDs, and so every CloneSet and its pods (helm.sh/resource-policy keep); false deletes them as upstream does',
  'installation.namespace': 'namespace of kruise-manager, kruise-daemon and the webhook Service',
  'installation.createNamespace':
    "create installation.namespace, labelled control-plane=controller-manager (the pod webhook skips it); with false, label yours so, or kruise-manager's own pods wait for its pod webhook",
  featureGates:
    "kruise's feature gates, Gate=bool pairs separated by commas, bool as Go reads it (true, false, True, 1, 0, t, F, …; escape the commas in --set: A=true\\,B=false)",
  imagePullSecrets: 'pull secrets of the kruise-manager and kruise-daemon images',
  'manager.log.level': `kruise-manager's LOG_LEVEL: one of ${LOG_LEVELS.join(', ')} (upstream's klog verbosity numbers do not apply)`,
  'manager.replicas': 'kruise-manager replicas (one leads through the Lease kruise-manager)',
  'manager.image.repository': 'kruise-manager image (built from Dockerfile.manager)',
  'manager.image.tag': 'kruise-manager image tag',
  'manager.webhook.port':
    'port of the admission webhook server (the Service kruise-webhook-service sends 443 there)',
  'manager.metrics.port': 'port of /metrics',
  'manager.healthProbe.port': 'port of /healthz and /readyz',
  'manager.resources': 'resources of the kruise-manager container',
  'manager.hostNetwork':
    "run kruise-manager on the nodes' network (where the API server cannot reach pod IPs, e.g. a custom CNI)",
  'manager.nodeAffinity': 'node affinity of the kruise-manager pods',
  'manager.nodeSelector': 'node selector of the kruise-manager pods',
  'manager.tolerations': 'tolerations of the kruise-manager pods',
  'webhookConfiguration.failurePolicy.pods': 'failurePolicy of the pod webhook mpod.kb.io (Fail or Ignore)',
  'webhookConfiguration.timeoutSeconds': 'timeoutSeconds of every webhook',
  'daemon.log.level': `kruise-daemon's LOG_LEVEL: one of ${LOG_LEVELS.join(', ')}`,
  'daemon.image.repository':
    'kruise-daemon image (built from Dockerfile.daemon; upstream runs the manager image)',
  'daemon.image.tag': 'kruise-daemon image tag',
  'daemon.port': 'port of /healthz and /metrics (host network)',
  'daemon.socketLocation': "the node's directory holding the CRI socket, mounted read-only at /hostvarrun",
  'daemon.nodeSelector': 'node selector of the kruise-daemon pods',
  'daemon.affinity': 'affinity of the kruise-daemon pods (by default: not on virtual-kubelet nodes)',
  'daemon.resources': 'resources of the kruise-daemon container',
  'daemon.extraEnvs': 'environment variables added to kruise-daemon (e.g. HTTPS_PROXY for image pulls)',
  'serviceAccount.annotations': 'annotations of the kruise-manager and kruise-daemon ServiceAccounts',
};

/** The default of a value. @throws Error for a path CHART_VALUES does not have. */
export function defaultValue(path: ValuePath): unknown {
  let node: unknown = CHART_VALUES;
  for (const key of path.split('.')) {
    if (node === null || typeof node !== 'object' || !(key in node))
      throw new Error(`no chart value ${path}`);
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

/**
 * Exactly the featureGates strings kruise-manager and kruise-daemon accept: Kruise's gates, each
 * `=` a boolean in any spelling of Go's strconv.ParseBool, as component-base's flag reads them.
 */
export const FEATURE_GATES_PATTERN = featureGateFlagPattern(Object.keys(FEATURE_DEFAULTS));
