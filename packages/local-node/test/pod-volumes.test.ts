import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PersistentVolume, PersistentVolumeClaim } from 'kubernetes-types/core/v1.js';
import { afterAll, describe, expect, it } from 'vitest';
import type { BoundPod } from '../src/node/bound-pod.ts';
import { PodVolumes, type VolumeSources } from '../src/node/pod-volumes.ts';

const dir = mkdtempSync(join(tmpdir(), 'pod-volumes-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function sources(
  claims: Record<string, PersistentVolumeClaim>,
  volumes: Record<string, PersistentVolume>,
): VolumeSources {
  return {
    configMap: async () => undefined,
    secret: async () => undefined,
    claim: async (_ns, name) => claims[name],
    volume: async (name) => volumes[name],
  };
}
const facts = { hostIP: '127.0.0.1', allocatable: { cpu: '2', memory: '1Gi' } };
const podWith = (volumes: NonNullable<BoundPod['spec']['volumes']>) =>
  ({ metadata: { name: 'p', namespace: 'ns', uid: 'uid-1' }, spec: { containers: [], volumes } }) as BoundPod;

describe('persistentVolumeClaim volumes', () => {
  const pvDir = join(dir, 'pv-1');
  const pv = { metadata: { name: 'pv-1' }, spec: { local: { path: pvDir } } } as PersistentVolume;
  const bound = { spec: { volumeName: 'pv-1' }, status: { phase: 'Bound' } } as PersistentVolumeClaim;
  const pending = { spec: {}, status: { phase: 'Pending' } } as PersistentVolumeClaim;
  const vols = new PodVolumes(
    join(dir, 'root'),
    sources({ data: bound, waiting: pending }, { 'pv-1': pv }),
    facts,
  );

  it("mount the bound PV's local directory (created when missing), read-only when the claim says so", async () => {
    const ready = await vols.setUp(
      podWith([{ name: 'd', persistentVolumeClaim: { claimName: 'data', readOnly: true } }]),
    );
    expect(ready.get('d')).toEqual({ path: pvDir, readOnly: true });
    expect(existsSync(pvDir)).toBe(true);
    const mounts = vols.mounts(
      { name: 'c', volumeMounts: [{ name: 'd', mountPath: '/data', subPath: 'shard-$(N)' }] },
      ready,
      new Map(),
    );
    expect(mounts).toEqual([{ containerPath: '/data', hostPath: join(pvDir, 'shard-$(N)'), readonly: true }]);
    const expr = vols.mounts(
      { name: 'c', volumeMounts: [{ name: 'd', mountPath: '/data', subPathExpr: 'shard-$(N)' }] },
      ready,
      new Map([['N', '3']]),
    );
    expect(expr[0]!.hostPath).toBe(join(pvDir, 'shard-3'));
  });

  it("fails with kubelet's words while the claim is missing or unbound, and for a hostPath of the wrong type", async () => {
    await expect(
      vols.setUp(podWith([{ name: 'd', persistentVolumeClaim: { claimName: 'nope' } }])),
    ).rejects.toThrow('MountVolume.SetUp failed for volume "d" : persistentvolumeclaim "nope" not found');
    await expect(
      vols.setUp(podWith([{ name: 'd', persistentVolumeClaim: { claimName: 'waiting' } }])),
    ).rejects.toThrow(
      'MountVolume.SetUp failed for volume "d" : error processing PVC ns/waiting: PVC is not bound',
    );
    await expect(
      vols.setUp(podWith([{ name: 'h', hostPath: { path: join(dir, 'absent'), type: 'Directory' } }])),
    ).rejects.toThrow(
      `MountVolume.SetUp failed for volume "h" : hostPath type check failed: ${join(dir, 'absent')} is not a directory`,
    );
  });
});
