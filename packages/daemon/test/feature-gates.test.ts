import { UsageError } from '@kruise/runtime/cli/usage-error';
import { describe, expect, it } from 'vitest';
import { parseDaemonOptions } from '../src/options.ts';

const parse = (...flags: string[]) => parseDaemonOptions(['--node-name=n', ...flags], {});

describe('kruise-daemon --feature-gates', () => {
  it("runs containermeta with env-from-metadata by default (upstream's defaults)", () => {
    const gates = parse().featureGates;
    expect(gates.enabled('DaemonWatchingPod')).toBe(true);
    expect(gates.enabled('InPlaceUpdateEnvFromMetadata')).toBe(true);
  });

  it('turns gates off, and KruiseDaemon=false turns every daemon gate off', () => {
    expect(parse('--feature-gates=DaemonWatchingPod=false').featureGates.enabled('DaemonWatchingPod')).toBe(
      false,
    );
    const off = parse('--feature-gates=KruiseDaemon=false').featureGates;
    expect(off.enabled('DaemonWatchingPod')).toBe(false);
    expect(off.enabled('InPlaceUpdateEnvFromMetadata')).toBe(false);
  });

  it('exits 2 naming an unknown gate or a value that is not a boolean', () => {
    for (const [flag, message] of [
      ['--feature-gates=NoSuchGate=true', 'unrecognized feature gate: NoSuchGate'],
      [
        '--feature-gates=DaemonWatchingPod=yes',
        'invalid value of DaemonWatchingPod=yes, err: strconv.ParseBool: parsing "yes": invalid syntax',
      ],
    ] as const) {
      let error: unknown;
      try {
        parse(flag);
      } catch (err) {
        error = err;
      }
      expect(error).toBeInstanceOf(UsageError);
      expect(error).toMatchObject({
        exitCode: 2,
        message: `invalid argument "${flag.slice('--feature-gates='.length)}" for "--feature-gates" flag: ${message}`,
      });
    }
  });
});
