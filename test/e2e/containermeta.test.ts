import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  expectedEnvFromMetadataHash,
  KruiseResources,
  RUNTIME_CONTAINERS_META_ANNOTATION,
} from '@kruise/api';
import { ControlPlane } from '@kruise/control-plane';
import { CriClient } from '@kruise/cri/client';
import {
  CRI_CONTAINER_HASH_ANNOTATION,
  CRI_POD_UID_LABEL,
  parseKubeletContainerHash,
} from '@kruise/kube-compat';
import { KubeClient, type KubeObject, Resources } from '@kruise/runtime';
import type { Program } from '@kruise/stack/program';
import { startDaemonProcess, startLocalNodeProcess } from '@kruise/stack/program-recipes';
import { repoRoot } from '@kruise/stack/repo-root';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { parse } from 'yaml';
import { LOOP, until } from './env.ts';

/**
 * containermeta end to end: kruise-daemon (default gates DaemonWatchingPod and
 * InPlaceUpdateEnvFromMetadata) and the local node on the real containerd, pods a CloneSet
 * controls. No kruise-manager: the CloneSet object only owns the pods here, and the test plays the
 * manager's part of an in-place update (InPlaceUpdateReady False). As upstream: the daemon reports
 * each container's hashes in runtime-containers-meta, and an in-place update of env from labels or
 * annotations restarts the container whose env no longer matches.
 */
const NODE = 'meta-node';
const NS = 'default';
let cp: ControlPlane;
let client: KubeClient;
let cri: CriClient;
let dir: string;
const programs: Program[] = [];
let OWNER: Record<string, unknown>;
const registry = () => inject('registry');

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'kruise-meta-'));
  cp = await ControlPlane.start();
  client = KubeClient.fromString(cp.kubeconfig());
  const kubeconfig = join(dir, 'kubeconfig');
  writeFileSync(kubeconfig, cp.kubeconfig());
  for (const file of readdirSync(join(repoRoot, 'deploy/crds')))
    await client.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {
      body: parse(readFileSync(join(repoRoot, 'deploy/crds', file), 'utf8')),
    });
  const socket = `unix://${inject('criSocket')}`;
  programs.push(await startLocalNodeProcess(kubeconfig, NODE, socket, ['--restart-backoff=1s']));
  programs.push(await startDaemonProcess(kubeconfig, NODE, socket));
  cri = new CriClient(inject('criSocket'));
  const template = {
    metadata: { labels: { app: 'web' } },
    spec: { containers: [{ name: 'main', image: 'busybox' }] },
  };
  const cs = await until(() =>
    client
      .create(KruiseResources.CloneSet, {
        metadata: { name: 'web', namespace: NS },
        spec: { replicas: 2, selector: { matchLabels: { app: 'web' } }, template },
      })
      .catch(() => undefined),
  );
  OWNER = {
    apiVersion: 'apps.kruise.io/v1alpha1',
    kind: 'CloneSet',
    name: 'web',
    uid: cs.metadata!.uid,
    controller: true,
    blockOwnerDeletion: true,
  };
});
afterAll(async () => {
  for (const p of (await client.list(Resources.Pod, { namespace: NS })).items)
    await client
      .delete(Resources.Pod, NS, p.metadata!.name!, { gracePeriodSeconds: 1 })
      .catch(() => undefined);
  await until(async () => (await client.list(Resources.Pod, { namespace: NS })).items.length === 0).catch(
    () => undefined,
  );
  for (const p of programs.reverse()) await p.stop();
  cri?.close();
  await cp?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const ENV = [{ name: 'VERSION', valueFrom: { fieldRef: { fieldPath: "metadata.labels['version']" } } }];

const pod = (name: string) => client.get(Resources.Pod, NS, name);
const meta = (p: KubeObject) =>
  JSON.parse(p.metadata?.annotations?.[RUNTIME_CONTAINERS_META_ANNOTATION] ?? 'null');

/**
 * LOOP, in a container whose `env` first appends a line to /tmp/env-execs: every exec of `env` in
 * it (the daemon's way of reading a running container's env) leaves a line.
 */
const COUNTING_ENV_EXECS = [
  'sh',
  '-c',
  `mkdir -p /usr/local/bin && printf '#!/bin/sh\\necho exec >> /tmp/env-execs\\nexec /bin/env "$@"\\n' > /usr/local/bin/env && chmod +x /usr/local/bin/env && ${LOOP[2]}`,
];

/** How many times `env` was exec-ed in a COUNTING_ENV_EXECS container. */
async function envExecsIn(containerID: string): Promise<number> {
  const res = await cri.execSync(
    containerID.slice(containerID.indexOf('://') + 3),
    ['cat', '/tmp/env-execs'],
    3,
  );
  return Buffer.from(res.stdout).toString().split('\n').filter(Boolean).length;
}

/** Creates a pod on the node and waits until its container runs. */
async function runningPod(
  name: string,
  owned: boolean,
  container: { env?: typeof ENV; command?: string[] } = { env: ENV, command: LOOP },
): Promise<KubeObject> {
  await client.create(Resources.Pod, {
    metadata: {
      name,
      namespace: NS,
      labels: { app: 'web', version: 'v1' },
      ...(owned ? { ownerReferences: [OWNER] } : {}),
    },
    spec: {
      nodeName: NODE,
      terminationGracePeriodSeconds: 2,
      readinessGates: [{ conditionType: 'InPlaceUpdateReady' }],
      containers: [
        {
          name: 'main',
          image: `${registry()}/busybox:v1`,
          command: container.command ?? LOOP,
          env: [
            ...(container.env ?? []),
            // (ahead of /bin, for COUNTING_ENV_EXECS's env; the images' own PATH otherwise)
            { name: 'PATH', value: '/usr/local/bin:/bin:/usr/bin:/sbin:/usr/sbin' },
          ],
        },
      ],
    },
  });
  return until(async () => {
    const p = await pod(name);
    return p.status?.containerStatuses?.[0]?.state?.running ? p : undefined;
  });
}

/**
 * Resolves once the daemon has finished a sync of the pod that saw it as it is now. The marker: an
 * entry for a container the pod does not have, written into its reported meta, which the daemon
 * drops in its next sync of the pod. Syncs of one pod never overlap (one queue key), so by then each
 * sync for the pod's earlier changes has finished, with whatever it exec-ed or asked to restart.
 */
async function synced(name: string): Promise<void> {
  const ghost = {
    name: 'ghost',
    containerID: 'containerd://ghost',
    restartCount: 0,
    hashes: { plainHash: 1 },
  };
  const reported = meta(await pod(name));
  await client.mergePatch(Resources.Pod, NS, name, {
    metadata: {
      annotations: {
        [RUNTIME_CONTAINERS_META_ANNOTATION]: JSON.stringify({ containers: [...reported.containers, ghost] }),
      },
    },
  });
  await until(
    async () => !meta(await pod(name)).containers.some((c: { name: string }) => c.name === 'ghost'),
    {
      what: `kruise-daemon to sync pod ${name} (and drop the ghost entry)`,
    },
  );
}

/** The daemon's log lines saying it asked for a restart of a container of `pod`. */
const restartsAsked = (pod: string) =>
  programs[1]!
    .output()
    .split('\n')
    .filter((l) => l.includes('container env from metadata is stale') && l.includes(`"pod":"${NS}/${pod}"`));

/** VERSION in the running container, read through CRI as the daemon reads it. */
async function versionIn(containerID: string): Promise<string> {
  const res = await cri.execSync(containerID.slice(containerID.indexOf('://') + 3), ['env'], 3);
  return /^VERSION=(.*)$/m.exec(Buffer.from(res.stdout).toString())?.[1] ?? '';
}

describe('containermeta (kruise-daemon, local node, containerd)', () => {
  it("reports runtime-containers-meta with kubelet's hash and the env-from-metadata hash read from the container", async () => {
    const p = await runningPod('meta-report', true);
    const reported = await until(async () => {
      const q = await pod('meta-report');
      return meta(q)?.containers?.[0]?.hashes?.extractedEnvFromMetadataHash ? q : undefined;
    });
    const status = reported.status.containerStatuses[0];
    const { containers } = await cri.listContainers({
      labelSelector: { [CRI_POD_UID_LABEL]: p.metadata!.uid! },
    });
    const running = containers.find((c) => `containerd://${c.id}` === status.containerID)!;
    expect(meta(reported)).toEqual({
      containers: [
        {
          name: 'main',
          containerID: status.containerID,
          restartCount: 0,
          hashes: {
            plainHash: parseKubeletContainerHash(running.annotations[CRI_CONTAINER_HASH_ANNOTATION]),
            extractedEnvFromMetadataHash: expectedEnvFromMetadataHash(
              { env: ENV },
              { labels: { version: 'v1' } },
            ),
          },
        },
      ],
    });
    expect(meta(reported).containers[0].hashes.plainHash).toBeGreaterThan(0);
  });

  it('execs env in a container only when it has env from metadata, once per container', async () => {
    const plain = await runningPod('meta-plain', true, { command: COUNTING_ENV_EXECS });
    const fromMeta = await runningPod('meta-once', true, { env: ENV, command: COUNTING_ENV_EXECS });
    const reported = (name: string) =>
      until(async () => {
        const q = await pod(name);
        return meta(q)?.containers?.[0]?.containerID === q.status?.containerStatuses?.[0]?.containerID
          ? q
          : undefined;
      });
    const plainReported = await reported('meta-plain');
    const fromMetaReported = await reported('meta-once');
    // the hash of no env from metadata, as upstream reports it, known without an exec
    expect(meta(plainReported).containers[0].hashes).toEqual({
      plainHash: expect.any(Number),
      extractedEnvFromMetadataHash: expectedEnvFromMetadataHash({}, {}),
    });
    expect(meta(fromMetaReported).containers[0].hashes.extractedEnvFromMetadataHash).toBeGreaterThan(0);
    // A label change the env comes from is a sync of the pod (no restart outside an in-place update).
    await client.mergePatch(Resources.Pod, NS, 'meta-once', { metadata: { labels: { version: 'v2' } } });
    await synced('meta-once');
    expect(await envExecsIn(plain.status!.containerStatuses![0]!.containerID!)).toBe(0);
    expect(await envExecsIn(fromMeta.status!.containerStatuses![0]!.containerID!)).toBe(1);
  }, 60_000);

  it('leaves pods no Kruise workload controls alone', async () => {
    const unowned = await runningPod('meta-unowned', false, { env: ENV, command: COUNTING_ENV_EXECS });
    // The marker: a sync of an owned pod queued behind the unowned pod's events on the same watch.
    await synced('meta-report');
    expect(
      (await pod('meta-unowned')).metadata?.annotations?.[RUNTIME_CONTAINERS_META_ANNOTATION],
    ).toBeUndefined();
    expect(await envExecsIn(unowned.status!.containerStatuses![0]!.containerID!)).toBe(0);
  });

  it('does not restart on a pod-only label change; restarts with the new env while InPlaceUpdateReady is False', async () => {
    await runningPod('meta-restart', true);
    const first = await until(async () => {
      const q = await pod('meta-restart');
      return meta(q)?.containers?.[0]?.hashes?.extractedEnvFromMetadataHash ? q : undefined;
    });
    const firstID = first.status.containerStatuses[0].containerID;
    // A label change outside an in-place update: nothing restarts, the container keeps its env.
    await client.mergePatch(Resources.Pod, NS, 'meta-restart', {
      metadata: { labels: { version: 'v2' } },
    });
    await synced('meta-restart');
    expect(restartsAsked('meta-restart')).toEqual([]);
    const unchanged = await pod('meta-restart');
    expect(unchanged.status.containerStatuses[0]).toMatchObject({ containerID: firstID, restartCount: 0 });
    expect(await versionIn(firstID)).toBe('v1');
    // The in-place update of the env: InPlaceUpdateReady goes False (as the manager sets it).
    const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
    await client.mergePatchStatus(Resources.Pod, NS, 'meta-restart', {
      status: {
        conditions: [
          ...unchanged.status.conditions.filter((c: { type: string }) => c.type !== 'InPlaceUpdateReady'),
          {
            type: 'InPlaceUpdateReady',
            status: 'False',
            reason: 'StartInPlaceUpdate',
            lastTransitionTime: now,
          },
        ],
      },
    });
    const restarted = await until(async () => {
      const q = await pod('meta-restart');
      const s = q.status.containerStatuses[0];
      return s.restartCount === 1 && s.state?.running && s.containerID !== firstID ? q : undefined;
    }, 40_000);
    // asked for now, while InPlaceUpdateReady is False (the log line the check above looked for)
    expect(restartsAsked('meta-restart').length).toBeGreaterThan(0);
    const newID = restarted.status.containerStatuses[0].containerID;
    expect(await versionIn(newID)).toBe('v2');
    // The new container is reported with the hash of the env it now has, which matches the labels.
    const reported = await until(async () => {
      const q = await pod('meta-restart');
      return meta(q)?.containers?.[0]?.containerID === newID &&
        meta(q).containers[0].hashes.extractedEnvFromMetadataHash
        ? q
        : undefined;
    });
    expect(meta(reported).containers[0]).toMatchObject({
      restartCount: 1,
      hashes: {
        extractedEnvFromMetadataHash: expectedEnvFromMetadataHash(
          { env: ENV },
          { labels: { version: 'v2' } },
        ),
      },
    });
    const events = (
      await client.list(Resources.Event, {
        namespace: NS,
        fieldSelector: 'involvedObject.name=meta-restart',
      })
    ).items;
    expect(events).toContainEqual(
      expect.objectContaining({
        reason: 'Killing',
        message: `Stopping containerID ${firstID} by container meta restarter`,
        source: expect.objectContaining({ component: 'kruise-daemon-containermeta' }),
      }),
    );
  }, 90_000);
});
