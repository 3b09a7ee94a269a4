import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { networkInterfaces, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { CriClient } from '@kruise/cri/client';
import { resourceRef } from '@kruise/kube-compat/resource-ref';
import { KubeClient, type KubeObject, Resources } from '@kruise/runtime';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { useLocalNode } from '../support/local-node-env.ts';
import { until } from '../support/poll.ts';

// What Kruise's own install asks of a node (deploy/manager, deploy/daemon): host network and a
// hostPath of /var/run for the daemon; a bound ServiceAccount token, the `kubernetes` Service's
// variables, a non-root read-only container without capabilities, cgroup limits and probes.
const registry = inject('registry');
const socket = inject('criSocket');
// The pod bridge's gateway (cri-stack.sh gives each containerd a bridge of its own): the control
// plane serves there too, so pods outside the host network reach it.
const bridge = readFileSync(join(inject('criStackDir'), 'containerd/bridge'), 'utf8').trim();
const gateway = networkInterfaces()[bridge]!.find((i) => i.family === 'IPv4')!.address;
const hostDir = mkdtempSync(join(tmpdir(), 'kruise-hostpath-'));
writeFileSync(join(hostDir, 'hello'), 'from the host\n');
afterAll(() => rmSync(hostDir, { recursive: true, force: true }));
/** kubelet's clock for token refreshes, moved forward by the test. */
let clockShiftMs = 0;
const env = useLocalNode(
  'ln-kruise',
  { volumeResyncMs: 500, hostPaths: { '/var/run': dirname(socket) }, now: () => Date.now() + clockShiftMs },
  { extraBindAddresses: [gateway] },
);
const Role = resourceRef('rbac.authorization.k8s.io', 'v1', 'roles', 'Role', true);
const RoleBinding = resourceRef('rbac.authorization.k8s.io', 'v1', 'rolebindings', 'RoleBinding', true);
let client: KubeClient;
let cri: CriClient;
beforeAll(() => {
  ({ client, cri } = env);
});

const getPod = (name: string) => client.get(Resources.Pod, 'default', name);
const app = (p: KubeObject) => p.status?.containerStatuses?.find((s: { name: string }) => s.name === 'app');
const ready = (p: KubeObject) =>
  p.status?.conditions?.find((c: { type: string }) => c.type === 'Ready')?.status === 'True';
/** Runs a shell script in the pod's app container: exit code and output. */
const sh = async (pod: string, script: string) => {
  const id = app(await getPod(pod)).containerID.replace('containerd://', '');
  const res = await cri.execSync(id, ['sh', '-c', script], 10);
  const text = Buffer.from(res.stdout ?? []).toString() + Buffer.from(res.stderr ?? []).toString();
  return { code: res.exitCode, out: text.trim() };
};
const TOKEN = '/var/run/secrets/kubernetes.io/serviceaccount/token';
/** A server of /healthz and /readyz on `port` (busybox httpd), the programs' health endpoints. */
const serveHealth = (port: number) =>
  `trap 'exit 0' TERM; echo ok > /www/healthz; echo ok > /www/readyz; httpd -p ${port} -h /www; while true; do sleep 1 & wait $!; done`;

describe('the pods of Kruise’s own install', () => {
  it('a hostNetwork pod (the daemon’s shape): the hostPath /var/run read-only at /hostvarrun holds the node’s CRI socket, another hostPath shows the host’s file, the API server at 127.0.0.1, probes at the node’s address', async () => {
    const port = 20_000 + Math.floor(Math.random() * 20_000);
    await client.create(Resources.Pod, {
      metadata: { name: 'daemonish', namespace: 'default' },
      spec: {
        nodeName: 'ln-kruise',
        hostNetwork: true,
        terminationGracePeriodSeconds: 1,
        containers: [
          {
            name: 'app',
            image: `${registry}/busybox:v1`,
            command: ['sh', '-c', serveHealth(port).replace('-p ', '-p 127.0.0.1:')],
            livenessProbe: { httpGet: { path: '/healthz', port, host: '127.0.0.1' }, periodSeconds: 1 },
            readinessProbe: { httpGet: { path: '/readyz', port }, periodSeconds: 1 },
            securityContext: {
              allowPrivilegeEscalation: false,
              capabilities: { drop: ['ALL'] },
              privileged: false,
              readOnlyRootFilesystem: true,
            },
            volumeMounts: [
              { name: 'runtime-socket', mountPath: '/hostvarrun', readOnly: true },
              { name: 'data', mountPath: '/data', readOnly: true },
              { name: 'www', mountPath: '/www' },
            ],
          },
        ],
        volumes: [
          { name: 'runtime-socket', hostPath: { path: '/var/run', type: 'Directory' } },
          { name: 'data', hostPath: { path: hostDir, type: 'Directory' } },
          { name: 'www', emptyDir: {} },
        ],
      },
    });
    const pod = await until(async () => {
      const p = await getPod('daemonish');
      return ready(p) ? p : undefined;
    });
    expect(pod.status.podIP).toBe('127.0.0.1');
    expect((await sh('daemonish', 'cat /data/hello')).out).toBe('from the host');
    // the daemon's discovery finds /hostvarrun/containerd.sock, its first candidate
    expect((await sh('daemonish', 'test -S /hostvarrun/containerd.sock && echo socket')).out).toBe('socket');
    expect((await sh('daemonish', 'touch /hostvarrun/x')).code).not.toBe(0);
    const cpPort = new URL(env.cp.url).port;
    expect((await sh('daemonish', 'echo $KUBERNETES_SERVICE_HOST:$KUBERNETES_SERVICE_PORT')).out).toBe(
      `127.0.0.1:${cpPort}`,
    );
    expect(app(pod).restartCount).toBe(0);
  });

  it('a pod-network pod (the manager’s shape): a bound token it calls the API server with as its ServiceAccount, refreshed by kubelet’s rule; user 65534, read-only root, no capabilities, no_new_privs, its memory limit in the cgroup; Ready by its httpGet probe', async () => {
    await client.create(Resources.ServiceAccount, { metadata: { name: 'reader', namespace: 'default' } });
    // the control plane's root CA publisher keeps kube-root-ca.crt in every namespace
    expect((await client.get(Resources.ConfigMap, 'default', 'kube-root-ca.crt')).data['ca.crt']).toBe(
      env.cp.caCert,
    );
    await client.create(Role, {
      metadata: { name: 'pod-reader', namespace: 'default' },
      rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }],
    });
    await client.create(RoleBinding, {
      metadata: { name: 'pod-reader', namespace: 'default' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'pod-reader' },
      subjects: [{ kind: 'ServiceAccount', name: 'reader', namespace: 'default' }],
    });
    await client.create(Resources.Pod, {
      metadata: { name: 'managerish', namespace: 'default' },
      spec: {
        nodeName: 'ln-kruise',
        serviceAccountName: 'reader',
        terminationGracePeriodSeconds: 1,
        securityContext: { runAsNonRoot: true, runAsUser: 65534, runAsGroup: 65534 },
        containers: [
          {
            name: 'app',
            image: `${registry}/busybox:v1`,
            command: ['sh', '-c', serveHealth(8000)],
            readinessProbe: { httpGet: { path: '/readyz', port: 8000 }, periodSeconds: 1 },
            livenessProbe: { httpGet: { path: '/healthz', port: 8000 }, periodSeconds: 1 },
            resources: { limits: { cpu: '200m', memory: '64Mi' }, requests: { cpu: '100m', memory: '32Mi' } },
            securityContext: {
              allowPrivilegeEscalation: false,
              capabilities: { drop: ['ALL'] },
              readOnlyRootFilesystem: true,
            },
            volumeMounts: [
              { name: 'api-access', mountPath: dirname(TOKEN), readOnly: true },
              { name: 'www', mountPath: '/www' },
            ],
          },
        ],
        volumes: [
          {
            // the volume the ServiceAccount admission plugin adds (kube-api-access-<suffix>)
            name: 'api-access',
            projected: {
              defaultMode: 0o644,
              sources: [
                { serviceAccountToken: { path: 'token', expirationSeconds: 3607 } },
                { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
                {
                  downwardAPI: {
                    items: [
                      { path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } },
                    ],
                  },
                },
              ],
            },
          },
          { name: 'www', emptyDir: {} },
        ],
      },
    });
    const pod = await until(async () => {
      const p = await getPod('managerish');
      return ready(p) ? p : undefined;
    });
    expect(pod.status.podIP).toMatch(/^10\.88\./);
    expect((await sh('managerish', 'echo $(id -u):$(id -g)')).out).toBe('65534:65534');
    const write = await sh('managerish', 'touch /probe-write');
    expect(write.code).not.toBe(0);
    expect(write.out).toContain('Read-only file system');
    expect((await sh('managerish', 'grep -E "^(CapEff|NoNewPrivs)" /proc/self/status')).out).toMatch(
      /CapEff:\s+0000000000000000\s+NoNewPrivs:\s+1/,
    );
    expect((await sh('managerish', 'cat /sys/fs/cgroup/memory/memory.limit_in_bytes')).out).toBe(
      String(64 * 1024 * 1024),
    );
    // kubelet's fsUser: every container runs as 65534, so the token is that user's alone
    expect((await sh('managerish', `stat -L -c '%u %a' ${TOKEN}`)).out).toBe('65534 600');

    // in-cluster configuration from inside the pod: the gateway, the control plane's port, the token
    expect((await sh('managerish', 'echo $KUBERNETES_SERVICE_HOST:$KUBERNETES_SERVICE_PORT')).out).toBe(
      `${gateway}:${new URL(env.cp.url).port}`,
    );
    // the pod reaches it there (busybox's own TLS cannot talk to the ECDSA certificate: a TCP connection is shown)
    expect(
      (
        await sh(
          'managerish',
          'nc -w 2 $KUBERNETES_SERVICE_HOST $KUBERNETES_SERVICE_PORT </dev/null; echo rc=$?',
        )
      ).out,
    ).toBe('rc=0');
    // an in-cluster client built from the pod's own files and variables, as client-go builds it:
    // the CA it was given verifies the certificate at the gateway, the token is the account's
    const dir = dirname(TOKEN);
    const first = (await sh('managerish', `cat ${TOKEN}`)).out;
    const ca = (await sh('managerish', `cat ${dir}/ca.crt`)).out;
    expect((await sh('managerish', `cat ${dir}/namespace`)).out).toBe('default');
    const hostPort = (await sh('managerish', 'echo $KUBERNETES_SERVICE_HOST:$KUBERNETES_SERVICE_PORT')).out;
    const inCluster = (token: string) =>
      new KubeClient({
        server: `https://${hostPort}`,
        ca,
        authHeaders: async () => ({ authorization: `Bearer ${token}` }),
      });
    expect((await inCluster(first).get(Resources.Pod, 'default', 'managerish')).metadata!.uid).toBe(
      pod.metadata!.uid,
    );
    await expect(inCluster(first).list(Resources.Secret, { namespace: 'default' })).rejects.toMatchObject({
      code: 403,
      message: expect.stringContaining('User "system:serviceaccount:default:reader" cannot list'),
    });

    // 80% of the token's lifetime later (kubelet's clock), the file holds a new token that works too
    clockShiftMs = 0.85 * 3607_000;
    const second = await until(async () => {
      const t = (await sh('managerish', `cat ${TOKEN}`)).out;
      return t !== first ? t : undefined;
    });
    expect((await inCluster(second).get(Resources.Pod, 'default', 'managerish')).metadata!.name).toBe(
      'managerish',
    );
  });

  it('runAsNonRoot against an image that runs as root: CreateContainerConfigError in kubelet’s words', async () => {
    const created = await client.create(Resources.Pod, {
      metadata: { name: 'rootish', namespace: 'default' },
      spec: {
        nodeName: 'ln-kruise',
        terminationGracePeriodSeconds: 1,
        securityContext: { runAsNonRoot: true },
        containers: [{ name: 'app', image: `${registry}/busybox:v1`, command: ['sleep', '60'] }],
      },
    });
    const waiting = await until(async () => {
      const w = app(await getPod('rootish'))?.state?.waiting;
      return w?.reason === 'CreateContainerConfigError' ? w : undefined;
    });
    expect(waiting.message).toBe(
      `container has runAsNonRoot and image will run as root (pod: "rootish_default(${created.metadata!.uid})", container: app)`,
    );
  });
});
