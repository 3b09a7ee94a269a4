import { parseFeatureGates } from '@kruise/api';
import type { AdmissionRequest, AdmissionResponse } from '@kruise/runtime';
import { describe, expect, it } from 'vitest';
import { applyJsonPatch } from '../../control-plane/src/patch/json-patch.ts';
import { mutateBroadcastJob } from '../src/webhooks/broadcastjob/mutating.ts';
import { validateBroadcastJob } from '../src/webhooks/broadcastjob/validating.ts';
import { requestsFor } from './admission-request.ts';

/**
 * BroadcastJob's admission handlers called as the API server calls them: upstream's defaults on
 * the patched object, and every denial in upstream's words and with upstream's code (its
 * validating handler answers field errors 500, a body it cannot decode 400).
 */

type Obj = Record<string, any>;

const request = requestsFor('BroadcastJob', 'broadcastjobs');

const job = (spec: Obj = {}, meta: Obj = {}, apiVersion = 'apps.kruise.io/v1beta1'): Obj => ({
  apiVersion,
  kind: 'BroadcastJob',
  metadata: { name: 'bcj', namespace: 'default', ...meta },
  spec: {
    template: { spec: { containers: [{ name: 'main', image: 'busybox' }], restartPolicy: 'Never' } },
    ...spec,
  },
});

const mutate = mutateBroadcastJob(parseFeatureGates(''));
async function defaulted(req: AdmissionRequest): Promise<Obj> {
  const r = await mutate(req);
  expect(r.allowed).toBe(true);
  if (!r.patch) return req.object as Obj;
  return applyJsonPatch(req.object, JSON.parse(Buffer.from(r.patch, 'base64').toString())) as Obj;
}
const validate = (req: AdmissionRequest) =>
  Promise.resolve(validateBroadcastJob(req)) as Promise<AdmissionResponse>;

describe('BroadcastJob defaulting (mbroadcastjob.kb.io)', () => {
  it.each(['v1beta1', 'v1alpha1'])(
    'defaults completion Always, parallelism MaxInt32, FailFast and the template at %s',
    async (version) => {
      const obj = await defaulted(
        request('CREATE', job({}, {}, `apps.kruise.io/${version}`), undefined, version),
      );
      expect(obj.apiVersion).toBe(`apps.kruise.io/${version}`);
      expect(obj.spec.completionPolicy).toEqual({ type: 'Always' });
      expect(obj.spec.parallelism).toBe(2147483647);
      expect(obj.spec.failurePolicy).toEqual({ type: 'FailFast' });
      expect(obj.spec.paused).toBeUndefined();
      expect(obj.spec.template.spec).toMatchObject({
        restartPolicy: 'Never',
        dnsPolicy: 'ClusterFirst',
        schedulerName: 'default-scheduler',
        terminationGracePeriodSeconds: 30,
      });
      expect(obj.spec.template.spec.containers[0]).toMatchObject({
        imagePullPolicy: 'Always',
        terminationMessagePath: '/dev/termination-log',
      });
    },
  );

  it('keeps what the user set', async () => {
    const spec = {
      parallelism: '50%',
      completionPolicy: { type: 'Never' },
      failurePolicy: { type: 'Continue', restartLimit: 2 },
      paused: true,
    };
    const obj = await defaulted(request('CREATE', job(spec)));
    expect(obj.spec).toMatchObject(spec);
  });

  it('defaults the template on update only when it changed, and never with TemplateNoDefaults', async () => {
    const old = job(
      { parallelism: 1, completionPolicy: { type: 'Always' }, failurePolicy: { type: 'FailFast' } },
      {
        resourceVersion: '1',
      },
    );
    const same = await mutate(request('UPDATE', structuredClone(old), old));
    expect(same).toEqual({ allowed: true });
    const changed = structuredClone(old);
    changed.spec.template.spec.containers[0].image = 'busybox:2';
    const obj = await defaulted(request('UPDATE', changed, old));
    expect(obj.spec.template.spec.dnsPolicy).toBe('ClusterFirst');
    const noDefaults = mutateBroadcastJob(parseFeatureGates('TemplateNoDefaults=true'));
    const r = await noDefaults(request('CREATE', job()));
    const patched = applyJsonPatch(job(), JSON.parse(Buffer.from(r.patch!, 'base64').toString())) as Obj;
    expect(patched.spec.template.spec.dnsPolicy).toBeUndefined();
    expect(patched.spec.completionPolicy).toEqual({ type: 'Always' });
  });

  it('answers a body of the wrong shape 400', async () => {
    const r = await mutate(request('CREATE', { ...job(), spec: [] }));
    expect(r.allowed).toBe(false);
    expect(r.status?.code).toBe(400);
    expect(r.status?.message).toMatch(/^json: cannot unmarshal array into Go struct field BroadcastJob.spec/);
  });
});

describe('BroadcastJob validation (vbroadcastjob.kb.io)', () => {
  const refusal = async (obj: Obj, version = 'v1beta1') => {
    const r = await validate(
      request('CREATE', await defaulted(request('CREATE', obj, undefined, version)), undefined, version),
    );
    expect(r.allowed).toBe(false);
    return r.status;
  };

  it('admits a defaulted job with Never or OnFailure pods', async () => {
    for (const restartPolicy of ['Never', 'OnFailure']) {
      const obj = job({
        template: { spec: { containers: [{ name: 'c', image: 'busybox' }], restartPolicy } },
      });
      expect((await validate(request('CREATE', await defaulted(request('CREATE', obj))))).allowed).toBe(true);
    }
  });

  it('refuses pods that restart Always (the default), with code 500 as upstream', async () => {
    const obj = job({ template: { spec: { containers: [{ name: 'c', image: 'busybox' }] } } });
    expect(await refusal(obj)).toEqual({
      code: 500,
      message:
        'spec.template.spec.restartPolicy: Invalid value: "Always": pod restartPolicy can only be Never or OnFailure',
    });
  });

  it.each(['v1beta1', 'v1alpha1'])(
    'refuses a TTL or a deadline with completion Never at %s',
    async (version) => {
      const obj = job(
        { completionPolicy: { type: 'Never', ttlSecondsAfterFinished: 5, activeDeadlineSeconds: 10 } },
        {},
        `apps.kruise.io/${version}`,
      );
      expect(await refusal(obj, version)).toEqual({
        code: 500,
        message:
          '[spec.completionPolicy.ttlSecondsAfterFinished: Invalid value: 5: ttlSecondsAfterFinished can just work with Always CompletionPolicyType, spec.completionPolicy.activeDeadlineSeconds: Invalid value: 10: activeDeadlineSeconds can just work with Always CompletionPolicyType]',
      });
    },
  );

  it('refuses the controller labels preset in the pod template', async () => {
    const obj = job({
      template: {
        metadata: { labels: { 'broadcastjob-name': 'x' } },
        spec: { containers: [{ name: 'c', image: 'busybox' }], restartPolicy: 'Never' },
      },
    });
    expect((await refusal(obj))?.message).toBe(
      'spec.template.metadata.labels: Invalid value: map[string]string{"broadcastjob-name":"x"}: "broadcastjob-name" and "broadcastjob-controller-uid" are not allowed to preset in pod labels',
    );
  });

  it('refuses a name that is not letters, digits and dashes, or longer than 63', async () => {
    expect((await refusal(job({}, { name: 'a.b' })))?.message).toBe(
      "metadata.name: Invalid value: \"a.b\": BroadcastJob name must consist of alphanumeric characters or '-' (e.g. 'example-com', regex used for validation is '^[a-zA-Z0-9\\-]+$')",
    );
    const long = 'a'.repeat(64);
    expect((await refusal(job({}, { name: long })))?.message).toBe(
      `metadata.name: Invalid value: "${long}": must be no more than 63 characters`,
    );
  });

  it('validates the pod template as core/v1 does', async () => {
    const obj = job({ template: { spec: { containers: [], restartPolicy: 'Never' } } });
    expect((await refusal(obj))?.message).toBe('spec.template.spec.containers: Required value');
  });

  it('lets deletions through and answers a body of the wrong shape 400', async () => {
    expect((await validate(request('DELETE', undefined, job()))).allowed).toBe(true);
    const r = await validate(request('CREATE', { ...job(), spec: { template: 'x' } }));
    expect(r.status?.code).toBe(400);
  });
});
