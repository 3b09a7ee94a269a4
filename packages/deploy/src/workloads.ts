import { NAMES } from './names.ts';
import { DEFAULTS, type ValueSource } from './value-source.ts';

const dropAll = { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } };

/**
 * The kruise-manager Deployment: 2 replicas with leader election, probes, non-root, read-only
 * root. `v` gives the configurable values (deploy/ takes the defaults; the chart, its values).
 */
export function managerDeployment(v: ValueSource = DEFAULTS): object {
  const health = v.scalar<number>('manager.healthProbe.port');
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {
      name: NAMES.managerDeployment,
      namespace: v.scalar('installation.namespace'),
      labels: { ...NAMES.managerLabels },
    },
    spec: {
      replicas: v.scalar('manager.replicas'),
      selector: { matchLabels: { ...NAMES.managerLabels } },
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 0, maxSurge: '100%' } },
      template: {
        metadata: { labels: { ...NAMES.managerLabels } },
        spec: {
          ...v.optional('imagePullSecrets', 'imagePullSecrets'),
          serviceAccountName: NAMES.managerServiceAccount,
          hostNetwork: v.scalar('manager.hostNetwork'),
          terminationGracePeriodSeconds: 30,
          securityContext: { runAsNonRoot: true, runAsUser: 65534, runAsGroup: 65534 },
          containers: [
            {
              name: 'manager',
              image: `${v.text('manager.image.repository')}:${v.text('manager.image.tag')}`,
              imagePullPolicy: 'IfNotPresent',
              args: [
                '--enable-leader-election=true',
                `--metrics-addr=:${v.text('manager.metrics.port')}`,
                `--health-probe-addr=:${v.text('manager.healthProbe.port')}`,
                `--feature-gates=${v.text('featureGates')}`,
              ],
              env: [
                { name: 'POD_NAMESPACE', valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } } },
                { name: 'WEBHOOK_PORT', value: v.string('manager.webhook.port') },
                { name: 'LOG_LEVEL', value: v.scalar('manager.log.level') },
              ],
              ports: [
                { name: 'webhook-server', containerPort: v.scalar('manager.webhook.port'), protocol: 'TCP' },
                { name: 'metrics', containerPort: v.scalar('manager.metrics.port'), protocol: 'TCP' },
                { name: 'health', containerPort: health, protocol: 'TCP' },
              ],
              readinessProbe: { httpGet: { path: '/readyz', port: health }, periodSeconds: 5 },
              livenessProbe: {
                httpGet: { path: '/healthz', port: health },
                initialDelaySeconds: 10,
                periodSeconds: 10,
              },
              resources: v.block('manager.resources'),
              securityContext: { ...dropAll, readOnlyRootFilesystem: true },
            },
          ],
          affinity: {
            podAntiAffinity: {
              preferredDuringSchedulingIgnoredDuringExecution: [
                {
                  weight: 100,
                  podAffinityTerm: {
                    labelSelector: { matchLabels: { ...NAMES.managerLabels } },
                    topologyKey: 'kubernetes.io/hostname',
                  },
                },
              ],
            },
            ...v.optional('nodeAffinity', 'manager.nodeAffinity'),
          },
          ...v.optional('nodeSelector', 'manager.nodeSelector'),
          ...v.optional('tolerations', 'manager.tolerations'),
        },
      },
    },
  };
}

/**
 * The kruise-daemon DaemonSet: host network, the host's /var/run read-only at /hostvarrun (where
 * it finds the CRI socket), NODE_NAME, every taint tolerated, /healthz and /metrics on the node's
 * address (NODE_IP, not every interface) at 10221 with liveness there. It runs
 * as root (the runtime socket is root's) but unprivileged, with no capabilities; not on
 * virtual-kubelet nodes.
 */
export function daemonSet(v: ValueSource = DEFAULTS): object {
  const port = v.scalar<number>('daemon.port');
  return {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: {
      name: NAMES.daemonSet,
      namespace: v.scalar('installation.namespace'),
      labels: { ...NAMES.daemonLabels },
    },
    spec: {
      selector: { matchLabels: { ...NAMES.daemonLabels } },
      updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '10%' } },
      template: {
        metadata: { labels: { ...NAMES.daemonLabels } },
        spec: {
          ...v.optional('imagePullSecrets', 'imagePullSecrets'),
          serviceAccountName: NAMES.daemonServiceAccount,
          hostNetwork: true,
          dnsPolicy: 'ClusterFirstWithHostNet',
          terminationGracePeriodSeconds: 10,
          tolerations: [{ operator: 'Exists' }],
          ...v.optional('affinity', 'daemon.affinity'),
          ...v.optional('nodeSelector', 'daemon.nodeSelector'),
          containers: [
            {
              name: 'daemon',
              image: `${v.text('daemon.image.repository')}:${v.text('daemon.image.tag')}`,
              imagePullPolicy: 'IfNotPresent',
              args: [
                // the node's address only: every daemon of nodes that share a machine has its own
                `--addr=$(NODE_IP):${v.text('daemon.port')}`,
                '--host-run-dir=/hostvarrun',
                `--feature-gates=${v.text('featureGates')}`,
              ],
              env: [
                { name: 'NODE_NAME', valueFrom: { fieldRef: { fieldPath: 'spec.nodeName' } } },
                { name: 'NODE_IP', valueFrom: { fieldRef: { fieldPath: 'status.hostIP' } } },
                { name: 'LOG_LEVEL', value: v.scalar('daemon.log.level') },
                ...v.items('daemon.extraEnvs'),
              ],
              livenessProbe: {
                httpGet: { path: '/healthz', port },
                initialDelaySeconds: 60,
                periodSeconds: 10,
              },
              resources: v.block('daemon.resources'),
              securityContext: { ...dropAll, privileged: false, readOnlyRootFilesystem: true },
              volumeMounts: [{ name: 'runtime-socket', mountPath: '/hostvarrun', readOnly: true }],
            },
          ],
          volumes: [
            {
              name: 'runtime-socket',
              hostPath: { path: v.scalar('daemon.socketLocation'), type: 'Directory' },
            },
          ],
        },
      },
    },
  };
}
