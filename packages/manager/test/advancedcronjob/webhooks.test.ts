import { KruiseResources } from '@kruise/api';
import type { ControlPlane } from '@kruise/control-plane';
import { isNotFound, type KubeClient, type KubeObject, retryOnConflict } from '@kruise/runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ManagerApp } from '../../src/index.ts';
import { startEnv } from '../env.ts';

/**
 * AdvancedCronJob's defaulting and validating webhooks through the control plane (the CRD of
 * deploy/crds, the webhook configurations kruise-manager generates): upstream's defaults on the
 * stored object, refusals in upstream's words with nothing stored.
 */
const Acj = KruiseResources.AdvancedCronJob;

let cp: ControlPlane;
let client: KubeClient;
let app: ManagerApp;
beforeAll(async () => {
  // Paused objects only: the controller must not create jobs while these tests look at specs.
  ({ cp, client, app } = await startEnv());
});
afterAll(async () => {
  await app?.stop();
  await cp?.stop();
});

const podTemplate = {
  spec: { restartPolicy: 'Never', containers: [{ name: 'main', image: 'busybox:1.36' }] },
};
const jobTemplate = { spec: { template: podTemplate } };
const pullTemplate = { spec: { images: ['nginx:1.27'], completionPolicy: {} } };

const acj = (name: string, spec: Record<string, unknown> = {}, apiVersion = 'apps.kruise.io/v1beta1') => ({
  apiVersion,
  kind: 'AdvancedCronJob',
  metadata: { name, namespace: 'default' },
  spec: { schedule: '*/5 * * * *', paused: true, template: { jobTemplate }, ...spec },
});
const create = (obj: object) => client.create(Acj, obj as KubeObject) as Promise<KubeObject>;
const get = (name: string) => client.get<KubeObject>(Acj, 'default', name);
const denial = (message: string) =>
  `admission webhook "vadvancedcronjob.kb.io" denied the request: ${message}`;

/** The refusal of a create, after checking that nothing was stored. */
async function refusal(obj: { metadata: { name: string } }): Promise<{ code: number; message: string }> {
  const err = await create(obj).catch((e) => e);
  expect(err?.code, 'expected a denial').toBeGreaterThanOrEqual(400);
  expect(isNotFound(await get(obj.metadata.name).catch((e) => e)), 'nothing stored').toBe(true);
  return { code: err.code, message: err.message };
}

describe('AdvancedCronJob defaulting (madvancedcronjob.kb.io)', () => {
  it('stores upstream’s defaults and the pod defaults of a Job template', async () => {
    const { paused: _unset, ...spec } = acj('job-defaults').spec;
    const stored = await create({ ...acj('job-defaults'), spec });
    expect(stored.spec).toMatchObject({
      concurrencyPolicy: 'Allow',
      paused: false,
      successfulJobsHistoryLimit: 3,
      failedJobsHistoryLimit: 1,
    });
    expect(stored.spec.template.jobTemplate.spec.template.spec).toMatchObject({
      restartPolicy: 'Never',
      dnsPolicy: 'ClusterFirst',
      terminationGracePeriodSeconds: 30,
      schedulerName: 'default-scheduler',
      containers: [{ name: 'main', imagePullPolicy: 'Always', terminationMessagePolicy: 'File' }],
    });
    await client.delete(Acj, 'default', 'job-defaults');
  });

  it('defaults an ImageListPullJob template and makes its policy Replace', async () => {
    const stored = await create(
      acj('pull-defaults', { template: { imageListPullJobTemplate: pullTemplate } }),
    );
    expect(stored.spec.concurrencyPolicy).toBe('Replace');
    expect(stored.spec.template.imageListPullJobTemplate.spec).toEqual({
      images: ['nginx:1.27'],
      completionPolicy: { type: 'Always' },
      pullPolicy: { timeoutSeconds: 600, backoffLimit: 3 },
      imagePullPolicy: 'IfNotPresent',
    });
  });

  it('defaults an object created at v1alpha1, read back at both versions', async () => {
    const alpha = { ...Acj, version: 'v1alpha1' };
    const created = await client.create(alpha, acj('alpha', {}, 'apps.kruise.io/v1alpha1') as KubeObject);
    expect(created.apiVersion).toBe('apps.kruise.io/v1alpha1');
    expect(created.spec).toMatchObject({ concurrencyPolicy: 'Allow', successfulJobsHistoryLimit: 3 });
    expect((await get('alpha')).spec.template.jobTemplate.spec.template.spec.dnsPolicy).toBe('ClusterFirst');
    const refused = await client
      .create(alpha, acj('alpha-bad', { schedule: 'nope' }, 'apps.kruise.io/v1alpha1') as KubeObject)
      .catch((e) => e);
    expect(refused.message).toContain(
      denial('spec.schedule: Invalid value: "nope": expected exactly 5 fields, found 1: [nope]'),
    );
  });

  it('keeps the limits and policy a user set, and clears a status sent with the object', async () => {
    const stored = await create({
      ...acj('kept', {
        concurrencyPolicy: 'Forbid',
        successfulJobsHistoryLimit: 0,
        failedJobsHistoryLimit: 5,
      }),
      status: { type: 'Job', lastScheduleTime: '2026-01-01T00:00:00Z' },
    });
    expect(stored.spec).toMatchObject({
      concurrencyPolicy: 'Forbid',
      successfulJobsHistoryLimit: 0,
      failedJobsHistoryLimit: 5,
    });
    expect(stored.status ?? {}).toEqual({});
  });
});

describe('AdvancedCronJob validation (vadvancedcronjob.kb.io)', () => {
  it.each([
    [
      'an empty schedule',
      { schedule: '' },
      '[spec.schedule: Invalid value: "": schedule cannot be empty, please provide valid cron schedule., spec.schedule: Invalid value: "": empty spec string]',
    ],
    [
      'a schedule of one field',
      { schedule: 'soon' },
      'spec.schedule: Invalid value: "soon": expected exactly 5 fields, found 1: [soon]',
    ],
    [
      'a minute out of range',
      { schedule: '61 * * * *' },
      'spec.schedule: Invalid value: "61 * * * *": end of range (61) above maximum (59): 61',
    ],
    [
      'a zone prefix without a schedule',
      { schedule: 'TZ=UTC' },
      'spec.schedule: Invalid value: "TZ=UTC": invalid cron schedule: runtime error: slice bounds out of range [:-1]',
    ],
    [
      'both a TZ prefix and timeZone',
      { schedule: 'TZ=UTC 0 * * * *', timeZone: 'Europe/Berlin' },
      'spec.schedule: Invalid value: "TZ=UTC 0 * * * *": cannot use both timeZone field and TZ or CRON_TZ in schedule',
    ],
    [
      'the Local time zone',
      { timeZone: 'Local' },
      'spec.timeZone: Invalid value: "Local": timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones',
    ],
    [
      'an unknown time zone',
      { timeZone: 'Mars/Olympus' },
      'spec.timeZone: Invalid value: "Mars/Olympus": unknown time zone Mars/Olympus',
    ],
    [
      'no template',
      { template: {} },
      'spec.template: Forbidden: spec must have one template, either JobTemplate or BroadcastJobTemplate or ImageListPullJobTemplate should be provided',
    ],
    [
      'two templates',
      { template: { jobTemplate, broadcastJobTemplate: jobTemplate } },
      'spec.template: Forbidden: spec can have only one template, either JobTemplate or BroadcastJobTemplate or ImageListPullJobTemplate should be provided',
    ],
    [
      'a negative history limit',
      { successfulJobsHistoryLimit: -1 },
      'spec.successfulJobsHistoryLimit: Invalid value: -1: must be greater than or equal to 0',
    ],
    [
      'a Job template without containers',
      { template: { jobTemplate: { spec: { template: { spec: { restartPolicy: 'Never' } } } } } },
      'spec.template.spec.containers: Required value',
    ],
    [
      'an ImageListPullJob template with Allow',
      { concurrencyPolicy: 'Allow', template: { imageListPullJobTemplate: pullTemplate } },
      'spec.spec.concurrencyPolicy: Invalid value: "Allow": concurrencyPolicy should be Replace or Forbid, but current value is: Allow',
    ],
    [
      'an ImageListPullJob template with a TTL',
      {
        template: {
          imageListPullJobTemplate: {
            spec: { images: ['nginx:1.27'], completionPolicy: { ttlSecondsAfterFinished: 60 } },
          },
        },
      },
      'spec.template.imageListPullJobTemplate.spec.completionPolicy.ttlSecondsAfterFinished: Invalid value: 60: ttlSecondsAfterFinished is not supported in advancedCronJob',
    ],
    [
      'an ImageListPullJob template that never completes',
      {
        template: {
          imageListPullJobTemplate: { spec: { images: ['nginx:1.27'], completionPolicy: { type: 'Never' } } },
        },
      },
      'spec.template.imageListPullJobTemplate.spec.completionPolicy.type: Invalid value: "Never": completionPolicy should be Always, but current value is: Never',
    ],
  ])('refuses %s with upstream’s message (422), storing nothing', async (_what, spec, message) => {
    const name = `bad-${Math.random().toString(36).slice(2, 8)}`;
    const { code, message: got } = await refusal(acj(name, spec));
    expect(code).toBe(422);
    expect(got).toContain(denial(message));
  });

  it('refuses a name with a dot, in upstream’s words', async () => {
    const { message } = await refusal(acj('nightly.backup'));
    expect(message).toContain(
      `metadata.name: Invalid value: "nightly.backup": AdvancedCronJob name must consist of alphanumeric characters or '-' (e.g. 'example-com', regex used for validation is '^[a-zA-Z0-9\\-]+$')`,
    );
  });

  it('lets the schedule, limits and pause change, and refuses a template change', async () => {
    await create(acj('upd'));
    // The controller writes the status meanwhile: read, change, write until no conflict.
    const updated = await retryOnConflict(async () => {
      const stored = await get('upd');
      stored.spec.schedule = '@hourly';
      stored.spec.paused = true;
      stored.spec.successfulJobsHistoryLimit = 1;
      stored.spec.timeZone = 'Asia/Tokyo';
      return client.update(Acj, stored);
    });
    expect(updated.spec).toMatchObject({
      schedule: '@hourly',
      successfulJobsHistoryLimit: 1,
      timeZone: 'Asia/Tokyo',
    });
    const err = await retryOnConflict(async () => {
      const stored = await get('upd');
      stored.spec.template.jobTemplate.spec.template.spec.containers[0].image = 'busybox:1.37';
      return client.update(Acj, stored);
    }).catch((e) => e);
    expect(err.code).toBe(422);
    expect(err.message).toContain(
      denial(
        "spec: Forbidden: updates to advancedcronjob spec for fields other than 'imageListPullJobTemplate', 'schedule', 'concurrencyPolicy', 'successfulJobsHistoryLimit', 'failedJobsHistoryLimit', 'startingDeadlineSeconds', 'timeZone' and 'paused' are forbidden",
      ),
    );
    expect((await get('upd')).spec.template.jobTemplate.spec.template.spec.containers[0].image).toBe(
      'busybox:1.36',
    );
  });

  it('lets an ImageListPullJob template change', async () => {
    await create(acj('pull-upd', { template: { imageListPullJobTemplate: pullTemplate } }));
    const updated = await retryOnConflict(async () => {
      const stored = await get('pull-upd');
      stored.spec.template.imageListPullJobTemplate.spec.images = ['nginx:1.28', 'redis:7'];
      return client.update(Acj, stored);
    });
    expect(updated.spec.template.imageListPullJobTemplate.spec.images).toEqual(['nginx:1.28', 'redis:7']);
  });
});
