import { KruiseResources } from '@kruise/api';
import { type KubeObject, Resources } from '@kruise/runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../../../../test/support/poll.ts';
import { type CronHarness, HOUR, nextHour, runName, startCronHarness } from './harness.ts';

/**
 * AdvancedCronJob with a Job template, on an injected clock: runs on schedule, concurrency
 * policies, history limits, missed schedules, startingDeadlineSeconds and pause. The control
 * plane's Job controller creates each Job's pod, but no node runs it and that controller keeps the
 * real clock: a test finishes a Job by writing its status at the injected time.
 */
let h: CronHarness;
beforeAll(async () => {
  h = await startCronHarness();
});
afterAll(async () => {
  await h?.stop();
});

const jobTemplate = {
  metadata: { labels: { team: 'batch' }, annotations: { note: 'nightly' } },
  spec: {
    template: { spec: { restartPolicy: 'Never', containers: [{ name: 'main', image: 'busybox:1.36' }] } },
  },
};

async function create(name: string, spec: Record<string, unknown> = {}): Promise<number> {
  // Back to the real time first: the object's first reconcile reads the clock an earlier test moved.
  h.setClock(Date.now());
  await h.client.create(KruiseResources.AdvancedCronJob, {
    metadata: { name, namespace: 'default' },
    spec: { schedule: '0 * * * *', template: { jobTemplate }, ...spec },
  } as KubeObject);
  return h.createdAt(name);
}
const jobs = (name: string) => h.runs(Resources.Job, name);
const jobNames = async (name: string) => (await jobs(name)).map((j) => j.metadata!.name!);

describe('an AdvancedCronJob with a Job template', () => {
  it('creates the Job of each start time, owned by it, and reports it in status', async () => {
    const created = await create('hourly');
    const first = nextHour(created);
    await h.at('hourly', first - 1000);
    expect(await jobs('hourly')).toEqual([]);
    await h.at('hourly', first + 2000);
    const [job] = await jobs('hourly');
    expect(job?.metadata?.name).toBe(runName('hourly', first));
    expect(job?.metadata?.labels).toMatchObject({ team: 'batch' });
    expect(job?.metadata?.annotations).toEqual({
      note: 'nightly',
      'apps.kruise.io/scheduled-at': new Date(first).toISOString().replace('.000Z', 'Z'),
    });
    const acj = await h.get('hourly');
    expect(job?.metadata?.ownerReferences).toEqual([
      {
        apiVersion: 'apps.kruise.io/v1beta1',
        kind: 'AdvancedCronJob',
        name: 'hourly',
        uid: acj.metadata?.uid,
        controller: true,
        blockOwnerDeletion: true,
      },
    ]);
    expect(job?.spec?.template?.spec?.containers?.[0]?.image).toBe('busybox:1.36');
    const status = await eventually(async () => {
      const s = (await h.get('hourly')).status;
      return s?.active?.length ? s : undefined;
    });
    expect(status).toMatchObject({
      type: 'Job',
      lastScheduleTime: new Date(first).toISOString().replace('.000Z', 'Z'),
      active: [
        {
          kind: 'Job',
          apiVersion: 'batch/v1',
          namespace: 'default',
          name: runName('hourly', first),
          uid: job?.metadata?.uid,
        },
      ],
    });
    // Finished: no longer active; the next hour runs the next Job (Allow).
    await h.finishJob(runName('hourly', first), 'Complete', first);
    await eventually(async () => !(await h.get('hourly')).status?.active);
    await h.at('hourly', first + HOUR + 1000);
    expect(await jobNames('hourly')).toEqual([runName('hourly', first), runName('hourly', first + HOUR)]);
  });

  it('Allow runs the next start time beside an active Job', async () => {
    const first = nextHour(await create('allow'));
    await h.at('allow', first + 1000);
    await h.at('allow', first + HOUR + 1000);
    expect(await jobNames('allow')).toEqual([runName('allow', first), runName('allow', first + HOUR)]);
  });

  it('Forbid skips a start time while a Job is active, and runs once it finished', async () => {
    const first = nextHour(
      await create('forbid', { concurrencyPolicy: 'Forbid', startingDeadlineSeconds: 600 }),
    );
    await h.at('forbid', first + 1000);
    await eventually(async () => (await h.get('forbid')).status?.active?.length === 1);
    await h.at('forbid', first + HOUR + 1000);
    expect(await jobNames('forbid')).toEqual([runName('forbid', first)]);
    // The finished Job's update reconciles at once: the skipped start time is still within its deadline.
    await h.finishJob(runName('forbid', first), 'Complete', first);
    await eventually(async () => (await jobNames('forbid')).length === 2);
    expect(await jobNames('forbid')).toEqual([runName('forbid', first), runName('forbid', first + HOUR)]);
  });

  it('Replace deletes the active Job and creates the new one', async () => {
    const first = nextHour(await create('replace', { concurrencyPolicy: 'Replace' }));
    await h.at('replace', first + 1000);
    await eventually(async () => (await h.get('replace')).status?.active?.length === 1);
    await h.at('replace', first + HOUR + 1000);
    expect(await jobNames('replace')).toEqual([runName('replace', first + HOUR)]);
  });

  it('keeps the newest finished Jobs up to the history limits, deleting the oldest', async () => {
    const first = nextHour(
      await create('history', {
        successfulJobsHistoryLimit: 1,
        failedJobsHistoryLimit: 1,
        startingDeadlineSeconds: 60,
      }),
    );
    for (let i = 0; i < 4; i++) {
      const t = first + i * HOUR;
      await h.at('history', t + 1000);
      await eventually(async () => (await jobNames('history')).includes(runName('history', t)));
      await h.finishJob(runName('history', t), i === 1 ? 'Failed' : 'Complete', t);
    }
    await eventually(async () => {
      await h.at('history', first + 3 * HOUR + 5000);
      const names = await jobNames('history');
      return names.length === 2 ? names : undefined;
    });
    // The last success and the only failure remain; the older successes are gone.
    expect(await jobNames('history')).toEqual([
      runName('history', first + HOUR),
      runName('history', first + 3 * HOUR),
    ]);
  });

  it('runs only the most recent of several missed start times', async () => {
    const first = nextHour(await create('missed'));
    await h.at('missed', first + 3 * HOUR + 1000);
    expect(await jobNames('missed')).toEqual([runName('missed', first + 3 * HOUR)]);
  });

  it('warns of too many missed start times and still runs the most recent', async () => {
    const created = await create('behind', { schedule: '* * * * *' });
    const minute = (Math.floor(created / 60_000) + 200) * 60_000;
    await h.at('behind', minute + 1000);
    expect(await jobNames('behind')).toEqual([runName('behind', minute)]);
    const events = (await h.client.list<KubeObject>(Resources.Event, { namespace: 'default' })).items.filter(
      (e) => e.involvedObject?.name === 'behind' && e.reason === 'TooManyMissedTimes',
    );
    expect(events.map((e) => [e.type, e.message])).toEqual([
      [
        'Warning',
        'too many missed start times. Set or decrease .spec.startingDeadlineSeconds or check clock skew',
      ],
    ]);
  });

  it('does not start a run later than startingDeadlineSeconds after its time', async () => {
    const first = nextHour(await create('deadline', { startingDeadlineSeconds: 60 }));
    await h.at('deadline', first + 5 * 60_000);
    expect(await jobs('deadline')).toEqual([]);
    await h.at('deadline', first + HOUR + 30_000);
    expect(await jobNames('deadline')).toEqual([runName('deadline', first + HOUR)]);
  });

  it('runs nothing while paused, and the most recent start time when resumed', async () => {
    const first = nextHour(await create('paused', { paused: true }));
    await h.at('paused', first + 2 * HOUR + 1000);
    expect(await jobs('paused')).toEqual([]);
    await h.client.mergePatch(KruiseResources.AdvancedCronJob, 'default', 'paused', {
      spec: { paused: false },
    });
    await h.at('paused', first + 2 * HOUR + 2000);
    expect(await jobNames('paused')).toEqual([runName('paused', first + 2 * HOUR)]);
  });

  it('reads the schedule in its timeZone', async () => {
    // 09:00 in Tokyo is 00:00 UTC.
    const created = await create('tokyo', { schedule: '0 9 * * *', timeZone: 'Asia/Tokyo' });
    const day = 24 * HOUR;
    const midnightUtc = (Math.floor(created / day) + 1) * day;
    await h.at('tokyo', midnightUtc - 1000);
    expect(await jobs('tokyo')).toEqual([]);
    await h.at('tokyo', midnightUtc + 1000);
    expect(await jobNames('tokyo')).toEqual([runName('tokyo', midnightUtc)]);
  });
});
