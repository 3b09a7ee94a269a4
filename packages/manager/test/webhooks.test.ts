import { KruiseResources } from '@kruise/api';
import type { ControlPlane } from '@kruise/control-plane';
import type { KubeClient } from '@kruise/runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ManagerApp } from '../src/index.ts';
import { startEnv } from './env.ts';

let cp: ControlPlane;
let client: KubeClient;
let app: ManagerApp;
beforeAll(async () => ({ cp, client, app } = await startEnv()));
afterAll(async () => {
  await app.stop();
  await cp.stop();
});

const job = (name: string, spec: Record<string, unknown>) => ({
  metadata: { name, namespace: 'default' },
  spec: { completionPolicy: {}, ...spec },
});
const reject = async (name: string, spec: Record<string, unknown>) => {
  const err = await client.create(KruiseResources.ImagePullJob, job(name, spec)).catch((e) => e);
  expect(err?.code, `expected ${name} to be denied`).toBeGreaterThanOrEqual(400);
  return err.message as string;
};
const deniedBy = (hook: string, message: string) =>
  `admission webhook "${hook}" denied the request: ${message}`;

describe('ImagePullJob webhooks', () => {
  it('defaults a new job and adds the protection finalizer', async () => {
    const created = await client.create(
      KruiseResources.ImagePullJob,
      job('defaults', { image: 'nginx:1.25', completionPolicy: {} }),
    );
    expect(created.spec).toMatchObject({
      completionPolicy: { type: 'Always' },
      pullPolicy: { timeoutSeconds: 600, backoffLimit: 3 },
      imagePullPolicy: 'IfNotPresent',
    });
    expect(created.metadata?.finalizers).toEqual(['apps.kruise.io/deletion-protection']);
  });

  it.each([
    [
      'both-sel',
      { image: 'nginx', selector: { names: ['a'], matchLabels: { a: 'b' } } },
      'can not set both names and labelSelector in this spec.selector',
    ],
    [
      'bad-sel',
      { image: 'nginx', selector: { matchExpressions: [{ key: 'a', operator: 'Maybe' }] } },
      'invalid selector: "Maybe" is not a valid label selector operator',
    ],
    ['dup-names', { image: 'nginx', selector: { names: ['a', 'a'] } }, 'duplicated name in selector names'],
    [
      'sel-and-pod',
      { image: 'nginx', selector: { names: ['a'] }, podSelector: { matchLabels: { a: 'b' } } },
      'can not set both selector and podSelector',
    ],
    [
      'bad-podsel',
      { image: 'nginx', podSelector: { matchExpressions: [{ key: 'a', operator: 'In', values: [] }] } },
      "invalid podSelector: values: Invalid value: []string(nil): for 'in', 'notin' operators, values set can't be empty",
    ],
    ['no-image', { image: '' }, 'image can not be empty'],
    [
      'bad-image',
      { image: 'Nginx:1' },
      'invalid image Nginx:1: invalid reference format: repository name (library/Nginx) must be lowercase',
    ],
    ['percent', { image: 'nginx', parallelism: '50%' }, 'parallelism does not support percentage value'],
    [
      'not-int',
      { image: 'nginx', parallelism: 'ten' },
      'parallelism must be a valid integer: strconv.Atoi: parsing "ten": invalid syntax',
    ],
    ['negative', { image: 'nginx', parallelism: -1 }, 'parallelism must be non-negative'],
    [
      'short-deadline',
      { image: 'nginx', completionPolicy: { type: 'Always', activeDeadlineSeconds: 60 } },
      'completionPolicy.activeDeadlineSeconds must be greater than pullPolicy.timeoutSeconds(default 600)',
    ],
    [
      'never-ttl',
      { image: 'nginx', completionPolicy: { type: 'Never', ttlSecondsAfterFinished: 10 } },
      'activeDeadlineSeconds and ttlSecondsAfterFinished can only work with Always CompletionPolicyType',
    ],
    [
      'odd-type',
      { image: 'nginx', completionPolicy: { type: 'Sometimes' } },
      'unknown type of completionPolicy: Sometimes',
    ],
  ])('denies %s with upstream message', async (name, spec, message) => {
    expect(await reject(name, spec)).toBe(deniedBy('vimagepulljob.kb.io', message));
  });

  it('keeps pullSecrets immutable', async () => {
    await client.create(KruiseResources.ImagePullJob, job('secrets', { image: 'nginx', pullSecrets: ['a'] }));
    const err = await client
      .mergePatch(KruiseResources.ImagePullJob, 'default', 'secrets', { spec: { pullSecrets: ['b'] } })
      .catch((e) => e);
    expect(err.message).toBe(deniedBy('vimagepulljob.kb.io', 'spec.pullSecrets is immutable'));
    // upstream answers with admission.Denied: 403 and the reason Forbidden
    expect(err).toMatchObject({ code: 403, reason: 'Forbidden' });
  });
});

describe('ImageListPullJob webhooks', () => {
  const list = (name: string, spec: Record<string, unknown>) => ({
    metadata: { name, namespace: 'default' },
    spec: { completionPolicy: {}, ...spec },
  });
  it('defaults type and pull policy only', async () => {
    const created = await client.create(
      KruiseResources.ImageListPullJob,
      list('l-defaults', { images: ['nginx', 'busybox'] }),
    );
    expect(created.spec).toMatchObject({
      completionPolicy: { type: 'Always' },
      pullPolicy: { timeoutSeconds: 600, backoffLimit: 3 },
    });
    expect(created.spec.imagePullPolicy).toBeUndefined();
    expect(created.metadata?.finalizers).toBeUndefined();
  });

  it.each([
    ['l-empty', { images: [] }, 'image can not be empty'],
    ['l-dup', { images: ['nginx', 'nginx'] }, 'images cannot have duplicate values'],
    [
      'l-many',
      { images: Array.from({ length: 256 }, (_, i) => `img${i}`) },
      'the maximum number of images cannot > 255',
    ],
    ['l-bad', { images: ['nginx', 'a b'] }, 'invalid image a b: invalid reference format'],
    [
      'l-never',
      { images: ['nginx'], completionPolicy: { type: 'Never', activeDeadlineSeconds: 1000 } },
      'activeDeadlineSeconds and ttlSecondsAfterFinished can only work with Always CompletionPolicyType',
    ],
  ])('denies %s', async (name, spec, message) => {
    const err = await client.create(KruiseResources.ImageListPullJob, list(name, spec)).catch((e) => e);
    expect(err.message).toBe(deniedBy('vimagelistpulljob.kb.io', message));
  });

  it('has no deadline-versus-timeout rule', async () => {
    await client.create(
      KruiseResources.ImageListPullJob,
      list('l-deadline', {
        images: ['nginx'],
        completionPolicy: { type: 'Always', activeDeadlineSeconds: 5 },
      }),
    );
  });
});

describe('NodeImage webhooks', () => {
  it('stamps createdAt and pull policy defaults, sorting tags', async () => {
    const created = await client.create(KruiseResources.NodeImage, {
      metadata: { name: 'n-defaults' },
      spec: {
        images: {
          nginx: {
            tags: [
              { tag: 'b', pullPolicy: { ttlSecondsAfterFinished: 10 } },
              { tag: 'a', pullPolicy: { ttlSecondsAfterFinished: 10 } },
            ],
          },
        },
      },
    });
    const tags = created.spec.images.nginx.tags;
    expect(tags.map((t: any) => t.tag)).toEqual(['a', 'b']);
    expect(tags[0].createdAt).toMatch(/Z$/);
    expect(tags[0].pullPolicy).toEqual({ ttlSecondsAfterFinished: 10, timeoutSeconds: 600, backoffLimit: 3 });
  });

  it.each([
    [
      'n-dup',
      {
        nginx: {
          tags: [
            { tag: 'a', pullPolicy: { ttlSecondsAfterFinished: 1 } },
            { tag: 'a', pullPolicy: { ttlSecondsAfterFinished: 1 } },
          ],
        },
      },
      'duplicated tag a for image nginx',
    ],
    ['n-ttl', { nginx: { tags: [{ tag: 'a' }] } }, 'pullPolicy.ttlSecondsAfterFinished for nginx/a must set'],
    [
      'n-version',
      { nginx: { tags: [{ tag: 'a', version: -1, pullPolicy: { ttlSecondsAfterFinished: 1 } }] } },
      'version for nginx/a can not be less than 0',
    ],
    [
      'n-many',
      Object.fromEntries(
        Array.from({ length: 257 }, (_, i) => [
          `img${i}`,
          { tags: [{ tag: 'a', pullPolicy: { ttlSecondsAfterFinished: 1 } }] },
        ]),
      ),
      'spec images length 257 can not be more than 256',
    ],
  ])('denies %s', async (name, images, message) => {
    const err = await client
      .create(KruiseResources.NodeImage, { metadata: { name }, spec: { images } })
      .catch((e) => e);
    expect(err.message).toBe(deniedBy('vnodeimage.kb.io', message));
  });
});
