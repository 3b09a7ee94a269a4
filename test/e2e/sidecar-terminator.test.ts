import { KruiseResources } from '@kruise/api';
import { CriClient } from '@kruise/cri/client';
import { DEPLOY_FEATURE_GATES } from '@kruise/deploy';
import { type KubeObject, Resources } from '@kruise/runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOOP, type System, startSystem, until } from './env.ts';

/**
 * SidecarTerminator end to end: kruise-manager (gate on), a local node and kruise-daemon on the test
 * containerd. A job-like pod's main container exits; the manager asks for its sidecar to be stopped
 * (a ContainerRecreateRequest), the daemon kills it, and the pod completes.
 */
let sys: System;
let cri: CriClient;
beforeAll(async () => {
  sys = await startSystem('sidecar-terminator-node', {
    managerArgs: [`--feature-gates=${DEPLOY_FEATURE_GATES},SidecarTerminator=true`],
  });
  cri = new CriClient(sys.criSocket);
});
afterAll(async () => {
  cri?.close();
  await sys?.stop();
});

const NS = 'default';
const EXIT = { name: 'KRUISE_TERMINATE_SIDECAR_WHEN_JOB_EXIT', value: 'true' };
const IGNORE = { name: 'KRUISE_TERMINATE_SIDECAR_IGNORE_EXIT_CODE', value: 'true' };

/** A restartPolicy Never pod: `main` runs `script`, `sidecar` runs `sidecarCommand` with `env`. */
const jobPod = (name: string, script: string, sidecarCommand: string[], env: object[]) =>
  sys.client.create(Resources.Pod, {
    metadata: { name, namespace: NS },
    spec: {
      nodeName: sys.node,
      restartPolicy: 'Never',
      terminationGracePeriodSeconds: 2,
      containers: [
        { name: 'main', image: `${sys.registry}/busybox:v1`, command: ['sh', '-c', script] },
        { name: 'sidecar', image: `${sys.registry}/busybox:v1`, command: sidecarCommand, env },
      ],
    },
  });

const status = (p: KubeObject, c: string) => p.status?.containerStatuses?.find((s: any) => s.name === c);
const phaseOf = (name: string, phase: string, timeoutMs = 60_000) =>
  until(async () => {
    const p = await sys.client.get(Resources.Pod, NS, name);
    return p.status?.phase === phase ? p : undefined;
  }, timeoutMs);
const crrOf = (p: KubeObject) =>
  sys.client.get(KruiseResources.ContainerRecreateRequest, NS, `sidecar-termination-${p.metadata?.uid}`);

describe('SidecarTerminator end to end (manager, daemon, local node, containerd)', () => {
  it('completes a job pod: the main container exits 0, the CRR stops the looping sidecar, the pod Succeeds', async () => {
    const created = await jobPod('job', 'sleep 2; exit 0', LOOP, [EXIT]);
    // (the sidecar alone would keep the pod Running for ever)
    const done = await phaseOf('job', 'Succeeded');
    expect(status(done, 'main').state.terminated.exitCode).toBe(0);
    // the sidecar was stopped (SIGTERM, exit 0), not restarted
    expect(status(done, 'sidecar').state.terminated.exitCode).toBe(0);
    expect(status(done, 'sidecar').restartCount).toBe(0);
    const crr = await crrOf(created);
    expect(crr.spec.containers.map((c: any) => c.name)).toEqual(['sidecar']);
    expect(crr.spec.strategy).toMatchObject({ forceRecreate: true, failurePolicy: 'Ignore' });
    expect(crr.metadata?.ownerReferences?.[0]).toMatchObject({ kind: 'Pod', uid: created.metadata?.uid });
    // the request named the sidecar container that ran, and it was that one which stopped
    expect(crr.spec.containers[0].statusContext.containerID).toBe(status(done, 'sidecar').containerID);
    const events = (await sys.client.list(Resources.Event, { namespace: NS })).items.filter(
      (e: any) => e.involvedObject?.name === 'job' && e.reason === 'SidecarTerminator',
    );
    expect(events.map((e: any) => e.message)).toEqual([
      'Kruise SidecarTerminator is trying to terminate sidecar [sidecar] using crr',
    ]);
  }, 120_000);

  it('ends a pod by its main container when its ignore-exit-code sidecar ignores SIGTERM: Succeeded, SidecarTerminated, sidecar killed', async () => {
    // sh as PID 1 ignores SIGTERM: the daemon kills the sidecar after the grace period (exit 137)
    await jobPod(
      'stubborn',
      'sleep 2; exit 0',
      ['sh', '-c', 'while true; do sleep 0.2; done'],
      [EXIT, IGNORE],
    );
    const running = await until(async () => {
      const p = await sys.client.get(Resources.Pod, NS, 'stubborn');
      return status(p, 'sidecar')?.state?.running ? p : undefined;
    }, 60_000);
    const sidecarID = String(status(running, 'sidecar').containerID).replace('containerd://', '');
    const done = await phaseOf('stubborn', 'Succeeded');
    expect(done.status.conditions.find((c: any) => c.type === 'SidecarTerminated')).toMatchObject({
      status: 'True',
      message: 'Terminated by Sidecar Terminator',
    });
    // the sidecar's container does not outlive the pod
    await until(
      async () => (await cri.containerStatus(sidecarID)).status?.state === 'CONTAINER_EXITED',
      30_000,
    );
  }, 120_000);
});
