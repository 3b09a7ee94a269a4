import { chmodSync, existsSync, mkdirSync, rmdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Mount } from '@kruise/cri/generated/runtime/v1/Mount';
import type { Container, PersistentVolume, PersistentVolumeClaim, Volume } from 'kubernetes-types/core/v1.js';
import { writeAtomically } from './atomic-writer.ts';
import type { BoundPod } from './bound-pod.ts';
import type { EnvSources, NodeEnvFacts } from './container-env.ts';
import { expand } from './env-expansion.ts';
import { apiVolumeFiles, type TokenSource, VolumeSetUpError } from './volume-content.ts';

/**
 * Where volumes' objects come from: ConfigMaps and Secrets, claims and their volumes (undefined:
 * not found), and ServiceAccount tokens when the node can request them.
 */
export interface VolumeSources extends EnvSources, Partial<TokenSource> {
  claim(namespace: string, name: string): Promise<PersistentVolumeClaim | undefined>;
  volume(name: string): Promise<PersistentVolume | undefined>;
}

/** A volume ready for the pod's containers: its directory (or file) on the node and whether it is read-only. */
interface ReadyVolume {
  path: string;
  readOnly: boolean;
}

/** kubelet's plugin directory names under `pods/<uid>/volumes/`. */
const PLUGIN_DIR = { emptyDir: 'kubernetes.io~empty-dir', api: 'kubernetes.io~projected' } as const;

function checkHostPath(path: string, type: string): void {
  const st = existsSync(path) ? statSync(path) : undefined;
  const fail = (what: string) => {
    throw new VolumeSetUpError(`hostPath type check failed: ${path} is not a ${what}`);
  };
  switch (type) {
    case 'DirectoryOrCreate':
      if (!st) mkdirSync(path, { recursive: true, mode: 0o755 });
      else if (!st.isDirectory()) fail('directory');
      return;
    case 'FileOrCreate':
      if (!st) writeFileSync(path, '', { mode: 0o644 });
      else if (!st.isFile()) fail('file');
      return;
    case 'Directory':
      if (!st?.isDirectory()) fail('directory');
      return;
    case 'File':
      if (!st?.isFile()) fail('file');
      return;
    case 'Socket':
      if (!st?.isSocket()) fail('socket file');
      return;
    case 'CharDevice':
      if (!st?.isCharacterDevice()) fail('character device');
      return;
    case 'BlockDevice':
      if (!st?.isBlockDevice()) fail('block device');
      return;
  }
}

/**
 * The volumes of the pods on one node, as kubelet's volume manager sets them up under
 * `<root>/pods/<uid>/volumes/`: emptyDir directories, configMap/secret/downwardAPI/projected files
 * written atomically (and rewritten when their sources change; projected ServiceAccount tokens
 * refreshed by the token manager's rule), hostPath with its type checks (as is, or where the
 * node keeps that host directory),
 * and persistentVolumeClaim through the bound PersistentVolume's local or hostPath directory.
 */
export class PodVolumes {
  private readonly root: string;
  private readonly sources: VolumeSources;
  private readonly facts: NodeEnvFacts;
  private readonly hostPaths: [string, string][];

  /** `hostPaths`: host directories this node keeps elsewhere (LocalNodeOptions.hostPaths). */
  constructor(
    root: string,
    sources: VolumeSources,
    facts: NodeEnvFacts,
    hostPaths: Record<string, string> = {},
  ) {
    this.root = root;
    this.sources = sources;
    this.facts = facts;
    // longest first, so /var/run/foo wins over /var/run
    this.hostPaths = Object.entries(hostPaths)
      .map(([k, v]): [string, string] => [k.replace(/\/+$/, '') || '/', v])
      .sort((a, b) => b[0].length - a[0].length);
  }

  /** Where a hostPath volume's path is on this node. */
  private hostPathOf(path: string): string {
    for (const [from, to] of this.hostPaths)
      if (path === from || path.startsWith(`${from}/`)) return to + path.slice(from.length);
    return path;
  }

  private podDir(uid: string): string {
    return join(this.root, 'pods', uid);
  }

  private async one(pod: BoundPod, v: Volume): Promise<ReadyVolume> {
    const base = join(this.podDir(pod.metadata.uid), 'volumes');
    const files = await apiVolumeFiles(pod, v, this.facts, this.sources);
    if (files) {
      const dir = join(base, PLUGIN_DIR.api, v.name);
      writeAtomically(dir, files);
      return { path: dir, readOnly: true };
    }
    if (v.emptyDir) {
      const dir = join(base, PLUGIN_DIR.emptyDir, v.name);
      mkdirSync(dir, { recursive: true });
      // kubelet's emptyDir is world-writable whatever the umask: non-root containers write there
      chmodSync(dir, 0o777);
      return { path: dir, readOnly: false };
    }
    if (v.hostPath) {
      const path = this.hostPathOf(v.hostPath.path);
      checkHostPath(path, v.hostPath.type ?? '');
      return { path, readOnly: false };
    }
    if (v.persistentVolumeClaim) {
      const ns = pod.metadata.namespace;
      const name = v.persistentVolumeClaim.claimName;
      const claim = await this.sources.claim(ns, name);
      if (!claim) throw new VolumeSetUpError(`persistentvolumeclaim "${name}" not found`);
      const pvName = claim.spec?.volumeName;
      if (!pvName || claim.status?.phase !== 'Bound')
        throw new VolumeSetUpError(`error processing PVC ${ns}/${name}: PVC is not bound`);
      const pv = await this.sources.volume(pvName);
      if (!pv) throw new VolumeSetUpError(`persistentvolume "${pvName}" not found`);
      const path = pv.spec?.local?.path ?? pv.spec?.hostPath?.path;
      if (!path)
        throw new VolumeSetUpError(
          `volume ${pvName} is neither local nor hostPath: this node mounts only those`,
        );
      mkdirSync(path, { recursive: true });
      return { path, readOnly: v.persistentVolumeClaim.readOnly === true };
    }
    throw new VolumeSetUpError(`volume ${v.name}: this node does not support its volume type`);
  }

  /**
   * Sets up every volume of the pod (again: API-data volumes pick up changes of their sources).
   * @throws VolumeSetUpError with kubelet's `MountVolume.SetUp failed for volume "<name>" : …` message.
   */
  async setUp(pod: BoundPod): Promise<Map<string, ReadyVolume>> {
    const out = new Map<string, ReadyVolume>();
    for (const v of pod.spec.volumes ?? []) {
      try {
        out.set(v.name, await this.one(pod, v));
      } catch (err) {
        throw new VolumeSetUpError(
          `MountVolume.SetUp failed for volume "${v.name}" : ${(err as Error).message}`,
        );
      }
    }
    return out;
  }

  /** The CRI mounts of a container: subPath (created when missing) and subPathExpr (`$(VAR)` from its env), read-only as asked or as the volume is. */
  mounts(container: Container, volumes: Map<string, ReadyVolume>, env: Map<string, string>): Mount[] {
    return (container.volumeMounts ?? []).map((m) => {
      const v = volumes.get(m.name);
      if (!v)
        throw new VolumeSetUpError(
          `cannot find volume "${m.name}" to mount into container "${container.name}"`,
        );
      const sub = m.subPathExpr ? expand(m.subPathExpr, (n) => env.get(n)) : (m.subPath ?? '');
      let hostPath = v.path;
      if (sub) {
        hostPath = join(v.path, sub);
        if (!existsSync(hostPath)) mkdirSync(hostPath, { recursive: true, mode: 0o750 });
      }
      return { containerPath: m.mountPath, hostPath, readonly: v.readOnly || m.readOnly === true };
    });
  }

  /** Removes a pod's volume directories (emptyDir data goes with the pod; hostPath and PV data stay). */
  tearDown(uid: string): void {
    rmSync(this.podDir(uid), { recursive: true, force: true });
  }

  /** Removes the root when no pod has volumes left (when the node stops). */
  removeRootIfEmpty(): void {
    for (const dir of [join(this.root, 'pods'), this.root]) {
      try {
        rmdirSync(dir);
      } catch {
        // not empty, or gone
      }
    }
  }
}
