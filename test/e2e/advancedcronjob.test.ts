import { KruiseResources } from '@kruise/api';
import { isNotFound, type KubeObject, Resources } from '@kruise/runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kubectl } from '../support/kubectl.ts';
import { type System, startSystem, until } from './env.ts';

/**
 * AdvancedCronJob end to end on the real clock: kruise-manager as a process runs an `@every 10s`
 * schedule with a Job template; the control plane's Job controller runs each Job's pod on the
 * local node, and the Job completes when the container exits.
 */
let sys: System;
const NS = 'default';

beforeAll(async () => {
  sys = await startSystem('acj-node');
});
afterAll(async () => {
  await sys?.stop();
});

const jobsOf = async (name: string) =>
  (await sys.client.list<KubeObject>(Resources.Job, { namespace: NS })).items
    .filter((j) =>
      j.metadata?.ownerReferences?.some(
        (r: { kind: string; name: string }) => r.kind === 'AdvancedCronJob' && r.name === name,
      ),
    )
    .sort((a, b) => (a.metadata!.name! < b.metadata!.name! ? -1 : 1));

describe('AdvancedCronJob on a real schedule', () => {
  it('runs a Job every 10 s, Forbid holding the next run until the active one finished', async () => {
    await sys.client.create(KruiseResources.AdvancedCronJob, {
      metadata: { name: 'tick', namespace: NS },
      spec: {
        schedule: '@every 10s',
        concurrencyPolicy: 'Forbid',
        template: {
          jobTemplate: {
            spec: {
              template: {
                spec: {
                  restartPolicy: 'Never',
                  containers: [
                    { name: 'main', image: `${sys.registry}/busybox:v1`, command: ['sleep', '25'] },
                  ],
                },
              },
            },
          },
        },
      },
    } as KubeObject);
    const [first] = await until(async () => {
      const jobs = await jobsOf('tick');
      return jobs.length ? jobs : undefined;
    }, 30_000);
    const scheduled = Date.parse(first!.metadata!.annotations!['apps.kruise.io/scheduled-at']!);
    expect(first!.metadata!.name).toBe(`tick-${scheduled / 1000}`);
    const listed = await kubectl(sys.kubeconfig, ['get', 'acj', 'tick', '-n', NS]);
    expect(listed.stdout).toMatch(/^NAME\s+SCHEDULE\s+TYPE\s+LASTSCHEDULETIME\s+AGE\n/);
    await until(async () => {
      const got = await kubectl(sys.kubeconfig, ['get', 'acj', 'tick', '-n', NS]);
      return /\ntick\s+@every 10s\s+Job\s+\d+s\s+\d+s\n/.test(got.stdout);
    }, 15_000);
    // Two more start times pass while the Job's pod sleeps: nothing else runs.
    await new Promise((r) => setTimeout(r, Math.max(0, scheduled + 21_000 - Date.now())));
    expect((await jobsOf('tick')).map((j) => j.metadata?.name)).toEqual([first!.metadata!.name]);
    const running = await kubectl(sys.kubeconfig, ['get', 'job', first!.metadata!.name!, '-n', NS]);
    expect(running.stdout).toMatch(/\ntick-\d+\s+Running\s+0\/1\s+/);
    const done = await kubectl(sys.kubeconfig, [
      'wait',
      '--for=condition=complete',
      `job/${first!.metadata!.name}`,
      '-n',
      NS,
      '--timeout=30s',
    ]);
    expect(done.status).toBe(0);
    const job = await sys.client.get<KubeObject>(Resources.Job, NS, first!.metadata!.name!);
    expect(job.status).toMatchObject({ succeeded: 1, ready: 0, terminating: 0 });
    const after = await until(async () => {
      const jobs = await jobsOf('tick');
      return jobs.length === 2 ? jobs : undefined;
    }, 30_000);
    expect(Date.parse(after[1]!.metadata!.annotations!['apps.kruise.io/scheduled-at']!)).toBeGreaterThan(
      scheduled,
    );
  }, 120_000);

  it('refuses a schedule robfig/cron cannot read, in upstream’s words, storing nothing', async () => {
    const bad = `apiVersion: apps.kruise.io/v1beta1
kind: AdvancedCronJob
metadata: {name: never, namespace: default}
spec:
  schedule: "every day"
  template:
    jobTemplate:
      spec:
        template:
          spec:
            restartPolicy: Never
            containers: [{name: main, image: busybox}]
`;
    const result = await kubectl(sys.kubeconfig, ['apply', '-f', '-'], bad);
    expect(result.status).not.toBe(0);
    expect(result.stderr).toContain(
      'admission webhook "vadvancedcronjob.kb.io" denied the request: spec.schedule: Invalid value: "every day": expected exactly 5 fields, found 2: [every day]',
    );
    const stored = await sys.client.get(KruiseResources.AdvancedCronJob, NS, 'never').catch((e) => e);
    expect(isNotFound(stored)).toBe(true);
  });
});
