import { parseFeatureGates } from '@kruise/api';
import { UsageError } from '@kruise/runtime';
import { describe, expect, it } from 'vitest';
import { parseOptions } from '../src/index.ts';
import { validateImagePullJob } from '../src/webhooks/imagepulljob/validating.ts';
import { validateNodeImage } from '../src/webhooks/nodeimage/validating.ts';

describe('feature gates', () => {
  it('uses upstream defaults and implications', () => {
    expect(parseFeatureGates('').enabled('KruiseDaemon')).toBe(true);
    expect(parseFeatureGates('').enabled('ImagePullJobGate')).toBe(false);
    expect(parseFeatureGates('PreDownloadImageForInPlaceUpdate=true').enabled('ImagePullJobGate')).toBe(true);
    const off = parseFeatureGates('KruiseDaemon=false,ImagePullJobGate=true');
    expect(off.enabled('ImagePullJobGate')).toBe(false);
    expect(off.enabled('DaemonWatchingPod')).toBe(false);
  });

  it('rejects unknown gates and non-boolean values', () => {
    expect(() => parseFeatureGates('Nope=true')).toThrow('unrecognized feature gate: Nope');
    expect(() => parseFeatureGates('KruiseDaemon=yes')).toThrow('invalid value of KruiseDaemon=yes');
  });

  it('answers 403 from the webhooks while a gate is off', async () => {
    const request = {
      uid: 'u',
      kind: { group: '', version: '', kind: '' },
      resource: { group: '', version: '', resource: '' },
      operation: 'CREATE' as const,
      object: { spec: { image: 'nginx', completionPolicy: { type: 'Always' } } },
    };
    expect(await validateImagePullJob(parseFeatureGates(''))(request)).toEqual({
      allowed: false,
      status: { code: 403, message: 'feature-gate ImagePullJobGate is not enabled' },
    });
    expect(
      (await validateImagePullJob(parseFeatureGates('KruiseDaemon=false'))(request)).status?.message,
    ).toBe('feature-gate KruiseDaemon is not enabled');
    expect(
      (await validateNodeImage(parseFeatureGates('KruiseDaemon=false'))({ ...request, object: {} })).status
        ?.code,
    ).toBe(403);
  });
});

describe('flags', () => {
  it('takes durations and booleans as Go reads them', () => {
    const o = parseOptions([
      '--expectation-timeout=1h30m',
      '--leader-election-lease-duration=1.5s',
      '--nodeimage-creation-delay=0',
      '--enable-leader-election=F',
      '--cloneset-scaling-exclude-preparing-delete',
    ]);
    expect(o).toMatchObject({
      expectationTimeoutMs: 5_400_000,
      leaseDurationMs: 1500,
      nodeImageCreationDelayMs: 0,
      enableLeaderElection: false,
      cloneSetScalingExcludePreparingDelete: true,
    });
  });

  it('has upstream defaults', () => {
    const o = parseOptions([]);
    expect(o).toMatchObject({
      metricsAddr: ':8080',
      healthProbeAddr: ':8000',
      webhookPort: 9876,
      webhookServiceName: 'kruise-webhook-service',
      enableLeaderElection: true,
      nodeImageCreationDelayMs: 30_000,
      defaultTtlSecondsForAlwaysNodeImage: 300,
      imagePullJobWorkers: 3,
      nodeImageWorkers: 3,
    });
  });

  it.each([
    [['--bogus'], 'unknown flag: --bogus'],
    [
      ['--imagepulljob-workers=0'],
      'invalid argument "0" for "--imagepulljob-workers" flag: must be a positive integer',
    ],
    [['--default-ttlseconds-for-always-nodeimage=99999999'], 'must be between 0 and 2678400'],
    [['--feature-gates=X=true'], 'unrecognized feature gate: X'],
    [
      ['--nodeimage-creation-delay=later'],
      'invalid argument "later" for "--nodeimage-creation-delay" flag: time: invalid duration "later"',
    ],
    [['--expectation-timeout=300000'], 'time: missing unit in duration "300000"'],
    [
      ['--enable-leader-election=maybe'],
      'invalid argument "maybe" for "--enable-leader-election" flag: strconv.ParseBool: parsing "maybe": invalid syntax',
    ],
  ])('refuses %j with exit code 2', (argv, message) => {
    let err: unknown;
    try {
      parseOptions(argv);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(UsageError);
    expect((err as UsageError).exitCode).toBe(2);
    expect((err as UsageError).message).toContain(message);
  });
});
