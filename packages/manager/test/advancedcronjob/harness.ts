import { KruiseResources } from '@kruise/api';
import type { ControlPlane } from '@kruise/control-plane';
import { type KubeClient, type KubeObject, type ResourceRef, Resources } from '@kruise/runtime';
import { eventually } from '../../../../test/support/poll.ts';
import type { ManagerApp } from '../../src/index.ts';
import { startEnv } from '../env.ts';

/**
 * kruise-manager on the in-process control plane with a clock the test moves: the AdvancedCronJob
 * controller reads only this clock, so a schedule's start times come when the test says.
 */
export interface CronHarness {
  cp: ControlPlane;
  client: KubeClient;
  app: ManagerApp;
  /** Sets the controller's clock (epoch ms). */
  setClock(ms: number): void;
  /** Sets the clock and reconciles the AdvancedCronJob `name` (in `default`) to the end. */
  at(name: string, ms: number): Promise<void>;
  /** The AdvancedCronJob as stored. */
  get(name: string): Promise<KubeObject>;
  /** Its runs of `resource`, from the API, oldest name first. */
  runs(resource: ResourceRef, name: string): Promise<KubeObject[]>;
  /** Writes a Job's status as a Job controller would: Complete or Failed, started at `startedAt`. */
  finishJob(name: string, condition: 'Complete' | 'Failed', startedAt: number): Promise<void>;
  /** The creation time of the AdvancedCronJob (epoch ms). */
  createdAt(name: string): Promise<number>;
  stop(): Promise<void>;
}

/** Starts the harness (the clock starts at the real time). */
export async function startCronHarness(): Promise<CronHarness> {
  let clock = Date.now();
  const { cp, client, app } = await startEnv([], { now: () => clock });
  const controller = app.controllers.get('advancedcronjob')!;
  const reconciles = () => Object.values(controller.counts).reduce((a, b) => a + b, 0);
  const get = (name: string) => client.get<KubeObject>(KruiseResources.AdvancedCronJob, 'default', name);
  return {
    cp,
    client,
    app,
    setClock: (ms) => {
      clock = ms;
    },
    async at(name, ms) {
      clock = ms;
      const before = reconciles();
      controller.enqueue(`default/${name}`);
      await eventually(
        () =>
          reconciles() > before &&
          controller.queue.len() === 0 &&
          controller.queue.longestRunningSeconds() === 0,
        { what: `a reconcile of ${name}` },
      );
    },
    get,
    async runs(resource, name) {
      const items = (await client.list<KubeObject>(resource, { namespace: 'default' })).items;
      return items
        .filter((j) =>
          j.metadata?.ownerReferences?.some(
            (r: { kind: string; name: string }) => r.kind === 'AdvancedCronJob' && r.name === name,
          ),
        )
        .filter((j) => !j.metadata?.deletionTimestamp)
        .sort((a, b) => (a.metadata!.name! < b.metadata!.name! ? -1 : 1));
    },
    async finishJob(name, condition, startedAt) {
      const job = await client.get<KubeObject>(Resources.Job, 'default', name);
      const time = new Date(startedAt).toISOString().replace(/\.\d+Z$/, 'Z');
      await client.updateStatus(Resources.Job, {
        ...job,
        status: { startTime: time, completionTime: time, conditions: [{ type: condition, status: 'True' }] },
      });
    },
    async createdAt(name) {
      return Date.parse((await get(name)).metadata!.creationTimestamp!);
    },
    async stop() {
      await app?.stop();
      await cp?.stop();
    },
  };
}

const HOUR = 3_600_000;

/** The first whole hour after `ms`. */
export const nextHour = (ms: number) => (Math.floor(ms / HOUR) + 1) * HOUR;

export { HOUR };

/** The name upstream gives the run of `acj` scheduled at `ms`. */
export const runName = (acj: string, ms: number) => `${acj}-${Math.floor(ms / 1000)}`;
