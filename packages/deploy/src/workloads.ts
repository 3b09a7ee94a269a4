import { DEPLOY_FEATURE_GATES, NAMES } from './names.ts';

const dropAll = { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } };

/** The kruise-manager Deployment: 2 replicas with leader election, probes, non-root, read-only root. */
export function managerDeployment(): object {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {
      name: NAMES.managerDeployment,
      namespace: NAMES.namespace,
      labels: { ...NAMES.managerLabels },
    },
    spec: {
      replicas: 2,
      selector: { matchLabels: { ...NAMES.managerLabels } },
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 0, maxSurge: '100%' } },
      template: {
        metadata: { labels: { ...NAMES.managerLabels } },
        spec: {
          serviceAccountName: NAMES.managerServiceAccount,
          terminationGracePeriodSeconds: 30,
          securityContext: { runAsNonRoot: true, runAsUser: 65534, runAsGroup: 65534 },
          containers: [
            {
              name: 'manager',
              image: NAMES.managerImage,
              imagePullPolicy: 'IfNotPresent',
              args: [
                '--enable-leader-election=true',
                '--metrics-addr=:8080',
                '--health-probe-addr=:8000',
                `--feature-gates=${DEPLOY_FEATURE_GATES}`,
              ],
              env: [
                { name: 'POD_NAMESPACE', valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } } },
                { name: 'WEBHOOK_PORT', value: '9876' },
              ],
              ports: [
                { name: 'webhook-server', containerPort: 9876, protocol: 'TCP' },
                { name: 'metrics', containerPort: 8080, protocol: 'TCP' },
                { name: 'health', containerPort: 8000, protocol: 'TCP' },
              ],
              readinessProbe: { httpGet: { path: '/readyz', port: 8000 }, periodSeconds: 5 },
              livenessProbe: {
                httpGet: { path: '/healthz', port: 8000 },
                initialDelaySeconds: 10,
                periodSeconds: 10,
              },
              resources: {
                requests: { cpu: '100m', memory: '256Mi' },
                limits: { cpu: '200m', memory: '512Mi' },
              },
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
          },
        },
      },
    },
  };
}

/**
 * The kruise-daemon DaemonSet: host network, the host's /var/run read-only at /hostvarrun (where
 * it finds the CRI socket), NODE_NAME, every taint tolerated, liveness on /healthz:10221. It runs
 * as root (the runtime socket is root's) but unprivileged, with no capabilities; not on
 * virtual-kubelet nodes.
 */
export function daemonSet(): object {
  return {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: { name: NAMES.daemonSet, namespace: NAMES.namespace, labels: { ...NAMES.daemonLabels } },
    spec: {
      selector: { matchLabels: { ...NAMES.daemonLabels } },
      updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '10%' } },
      template: {
        metadata: { labels: { ...NAMES.daemonLabels } },
        spec: {
          serviceAccountName: NAMES.daemonServiceAccount,
          hostNetwork: true,
          dnsPolicy: 'ClusterFirstWithHostNet',
          terminationGracePeriodSeconds: 10,
          tolerations: [{ operator: 'Exists' }],
          affinity: {
            nodeAffinity: {
              requiredDuringSchedulingIgnoredDuringExecution: {
                nodeSelectorTerms: [
                  { matchExpressions: [{ key: 'type', operator: 'NotIn', values: ['virtual-kubelet'] }] },
                ],
              },
            },
          },
          containers: [
            {
              name: 'daemon',
              image: NAMES.daemonImage,
              imagePullPolicy: 'IfNotPresent',
              args: ['--addr=:10221', '--host-run-dir=/hostvarrun'],
              env: [{ name: 'NODE_NAME', valueFrom: { fieldRef: { fieldPath: 'spec.nodeName' } } }],
              livenessProbe: {
                httpGet: { path: '/healthz', port: 10221, host: '127.0.0.1' },
                initialDelaySeconds: 60,
                periodSeconds: 10,
              },
              resources: { requests: { cpu: '0', memory: '0' }, limits: { cpu: '50m', memory: '128Mi' } },
              securityContext: { ...dropAll, privileged: false, readOnlyRootFilesystem: true },
              volumeMounts: [{ name: 'runtime-socket', mountPath: '/hostvarrun', readOnly: true }],
            },
          ],
          volumes: [{ name: 'runtime-socket', hostPath: { path: '/var/run', type: 'Directory' } }],
        },
      },
    },
  };
}
