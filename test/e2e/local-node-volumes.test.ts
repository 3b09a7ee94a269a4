import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CriClient } from '@kruise/cri/client';
import { type KubeClient, type KubeObject, Resources } from '@kruise/runtime';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { useLocalNode } from '../support/local-node-env.ts';
import { podLog } from '../support/pod-log.ts';
import { until } from '../support/poll.ts';

const registry = inject('registry');
const rootDir = mkdtempSync(join(tmpdir(), 'kruise-kubelet-'));
const hostDir = mkdtempSync(join(tmpdir(), 'kruise-hostpath-'));
const localPathRoot = join(rootDir, 'local-path');
// Registered before the node's own hooks, so it runs after the node has stopped (after-hooks run
// in reverse order): a node still running would create the hostPath directory again.
afterAll(() => {
  rmSync(rootDir, { recursive: true, force: true });
  rmSync(hostDir, { recursive: true, force: true });
});
const env = useLocalNode('ln-volumes', { rootDir, volumeResyncMs: 1000 }, { localPathRoot });
let client: KubeClient;
let cri: CriClient;
beforeAll(() => {
  ({ client, cri } = env);
});

const getPod = (name: string) => client.get(Resources.Pod, 'default', name);
const statusOf = (p: KubeObject, c: string) => p.status?.containerStatuses?.find((s: any) => s.name === c);
const inContainer = async (pod: string, script: string) => {
  const id = statusOf(await getPod(pod), 'app').containerID.replace('containerd://', '');
  const res = await cri.execSync(id, ['sh', '-c', script], 5);
  return Buffer.from(res.stdout ?? []).toString() + Buffer.from(res.stderr ?? []).toString();
};
const loop = "trap 'exit 0' TERM; while true; do sleep 0.2; done";

describe('volumes', () => {
  it('mounts each volume kind readable in the container: configMap, secret, downwardAPI, projected, emptyDir (subPath), hostPath (readOnly)', async () => {
    await client.create(Resources.ConfigMap, {
      metadata: { name: 'web-config', namespace: 'default' },
      data: { 'app.conf': 'level=info', 'index.html': '<h1>hi</h1>' },
    });
    await client.create(Resources.Secret, {
      metadata: { name: 'web-secret', namespace: 'default' },
      data: { password: Buffer.from('s3cret').toString('base64') },
    });
    const script = [
      'cat /etc/cfg/conf/app.conf; echo',
      'ls /etc/cfg',
      'cat /etc/sec/password; echo',
      'cat /etc/podinfo/labels; echo',
      'cat /etc/podinfo/name; echo',
      'cat /etc/proj/index.html /etc/proj/password /etc/proj/pod; echo',
      'echo inner > /sub/f',
      'echo from-pod > /host/written',
      'touch /ro-host/x 2>/dev/null || echo host-ro',
      'touch /etc/cfg/new 2>/dev/null || echo cfg-ro',
      loop,
    ].join('; ');
    await client.create(Resources.Pod, {
      metadata: { name: 'vols', namespace: 'default', labels: { app: 'web', tier: 'front' } },
      spec: {
        nodeName: 'ln-volumes',
        terminationGracePeriodSeconds: 2,
        volumes: [
          {
            name: 'cfg',
            configMap: { name: 'web-config', items: [{ key: 'app.conf', path: 'conf/app.conf' }] },
          },
          { name: 'sec', secret: { secretName: 'web-secret' } },
          {
            name: 'dapi',
            downwardAPI: {
              items: [
                { path: 'labels', fieldRef: { fieldPath: 'metadata.labels' } },
                { path: 'name', fieldRef: { fieldPath: 'metadata.name' } },
              ],
            },
          },
          {
            name: 'proj',
            projected: {
              sources: [
                { configMap: { name: 'web-config', items: [{ key: 'index.html', path: 'index.html' }] } },
                { secret: { name: 'web-secret' } },
                { downwardAPI: { items: [{ path: 'pod', fieldRef: { fieldPath: 'metadata.name' } }] } },
              ],
            },
          },
          { name: 'scratch', emptyDir: {} },
          { name: 'host', hostPath: { path: join(hostDir, 'data'), type: 'DirectoryOrCreate' } },
        ],
        containers: [
          {
            name: 'app',
            image: `${registry}/busybox:v1`,
            command: ['sh', '-c', script],
            volumeMounts: [
              { name: 'cfg', mountPath: '/etc/cfg' },
              { name: 'sec', mountPath: '/etc/sec' },
              { name: 'dapi', mountPath: '/etc/podinfo' },
              { name: 'proj', mountPath: '/etc/proj' },
              { name: 'scratch', mountPath: '/scratch' },
              { name: 'scratch', mountPath: '/sub', subPath: 'inner' },
              { name: 'host', mountPath: '/host' },
              { name: 'host', mountPath: '/ro-host', readOnly: true },
            ],
          },
        ],
      },
    });
    await until(async () => (statusOf(await getPod('vols'), 'app')?.state.running ? true : undefined));
    const log = await until(async () => {
      const l = await podLog(client, 'vols', { container: 'app' });
      return l.includes('cfg-ro') ? l : undefined;
    });
    expect(log).toBe(
      [
        'level=info',
        'conf',
        's3cret',
        'app="web"\ntier="front"',
        'vols',
        '<h1>hi</h1>s3cretvols',
        'host-ro',
        'cfg-ro',
        '',
      ].join('\n'),
    );
    // emptyDir with subPath: the file written under /sub is in the volume's "inner" directory.
    expect(await inContainer('vols', 'cat /scratch/inner/f')).toBe('inner\n');
    // hostPath: the pod's write is on the node.
    expect(readFileSync(join(hostDir, 'data/written'), 'utf8')).toBe('from-pod\n');
    // A ConfigMap change reaches the mounted file (atomically, through ..data).
    await client.mergePatch(Resources.ConfigMap, 'default', 'web-config', {
      data: { 'app.conf': 'level=debug' },
    });
    await until(async () =>
      (await inContainer('vols', 'cat /etc/cfg/conf/app.conf')) === 'level=debug' ? true : undefined,
    );
  }, 60_000);

  it("waits in ContainerCreating with kubelet's FailedMount event while a ConfigMap is missing, then starts", async () => {
    await client.create(Resources.Pod, {
      metadata: { name: 'nomount', namespace: 'default' },
      spec: {
        nodeName: 'ln-volumes',
        terminationGracePeriodSeconds: 2,
        volumes: [{ name: 'settings', configMap: { name: 'later' } }],
        containers: [
          {
            name: 'app',
            image: `${registry}/busybox:v1`,
            command: ['sh', '-c', `cat /cfg/k; echo; ${loop}`],
            volumeMounts: [{ name: 'settings', mountPath: '/cfg' }],
          },
        ],
      },
    });
    await until(async () => {
      const events = (await client.list(Resources.Event, { namespace: 'default' })).items.filter(
        (e: any) => e.involvedObject.name === 'nomount' && e.reason === 'FailedMount',
      );
      return events.some(
        (e: any) =>
          e.message === 'MountVolume.SetUp failed for volume "settings" : configmap "later" not found',
      )
        ? true
        : undefined;
    });
    const p = await until(async () => {
      const x = await getPod('nomount');
      return statusOf(x, 'app') ? x : undefined;
    });
    expect(p.status.phase).toBe('Pending');
    expect(statusOf(p, 'app').state.waiting.reason).toBe('ContainerCreating');
    await client.create(Resources.ConfigMap, {
      metadata: { name: 'later', namespace: 'default' },
      data: { k: 'v' },
    });
    await until(async () =>
      (await podLog(client, 'nomount', { container: 'app' }).catch(() => '')) === 'v\n' ? true : undefined,
    );
  }, 60_000);

  it("mounts a persistentVolumeClaim through the local-path PV: the pod waits for the claim, its data stays in the PV's directory", async () => {
    await client.create(Resources.PersistentVolumeClaim, {
      metadata: { name: 'data', namespace: 'default' },
      spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
    });
    await client.create(Resources.Pod, {
      metadata: { name: 'claimer', namespace: 'default' },
      spec: {
        // No nodeName: the scheduler binds it, the provisioner makes the PV for that node.
        terminationGracePeriodSeconds: 2,
        volumes: [{ name: 'data', persistentVolumeClaim: { claimName: 'data' } }],
        containers: [
          {
            name: 'app',
            image: `${registry}/busybox:v1`,
            command: ['sh', '-c', `echo kept > /data/file; mkdir -p /sub-in; ${loop}`],
            volumeMounts: [
              { name: 'data', mountPath: '/data' },
              { name: 'data', mountPath: '/sub-in', subPath: 'nested' },
            ],
          },
        ],
      },
    });
    const p = await until(async () => {
      const x = await getPod('claimer');
      return statusOf(x, 'app')?.state.running ? x : undefined;
    });
    expect(p.spec.nodeName).toBe('ln-volumes');
    const claim = await client.get(Resources.PersistentVolumeClaim, 'default', 'data');
    const pv = await client.get(Resources.PersistentVolume, undefined, claim.spec.volumeName);
    expect(pv.spec.hostPath.path.startsWith(localPathRoot)).toBe(true);
    await until(async () =>
      (await inContainer('claimer', 'cat /data/file')) === 'kept\n' ? true : undefined,
    );
    expect(readFileSync(join(pv.spec.hostPath.path, 'file'), 'utf8')).toBe('kept\n');
    await inContainer('claimer', 'echo deep > /sub-in/x');
    expect(readFileSync(join(pv.spec.hostPath.path, 'nested/x'), 'utf8')).toBe('deep\n');
  }, 60_000);
});
