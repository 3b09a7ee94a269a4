import type { CriClient } from '@kruise/cri/client';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Prober } from '../src/node/prober.ts';

/** A prober whose probe results come from `results` (one per call, the last repeated), on fake time. */
function setUp(results: boolean[]) {
  const calls: number[] = [];
  const changes: string[] = [];
  const unhealthy: string[] = [];
  const addressed: string[] = [];
  let i = 0;
  const prober = new Prober({
    cri: {} as CriClient,
    onChange: (uid) => changes.push(uid),
    onUnhealthy: (_uid, _c, message) => unhealthy.push(message),
    check: async (_probe, target) => {
      calls.push(Date.now());
      addressed.push(target.podIP);
      const ok = results[Math.min(i++, results.length - 1)]!;
      return { ok, output: ok ? '' : 'nope' };
    },
  });
  return { prober, calls, changes, unhealthy, addressed };
}

beforeEach(() => {
  vi.useFakeTimers();
  vi.setSystemTime(0);
});
afterEach(() => vi.useRealTimers());

const container = (spec: Record<string, unknown>) => ({
  podUid: 'u',
  id: 'c1',
  startedAtMs: 0,
  podIP: '10.88.1.7',
  spec: { name: 'app', ...spec },
});

describe("prober (kubelet's worker rules)", () => {
  it("waits initialDelaySeconds, probes every periodSeconds at the pod's IP, and turns ready after successThreshold successes", async () => {
    const { prober, calls, changes, addressed } = setUp([true]);
    prober.update('u', [
      container({
        readinessProbe: {
          exec: { command: ['x'] },
          initialDelaySeconds: 5,
          periodSeconds: 2,
          successThreshold: 3,
        },
      }),
    ]);
    expect(prober.ready('c1')).toBe(false);
    await vi.advanceTimersByTimeAsync(4999);
    expect(calls).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(calls).toEqual([5000]);
    await vi.advanceTimersByTimeAsync(2000);
    expect(prober.ready('c1')).toBe(false);
    await vi.advanceTimersByTimeAsync(2000);
    expect(calls).toEqual([5000, 7000, 9000]);
    expect(addressed).toEqual(['10.88.1.7', '10.88.1.7', '10.88.1.7']);
    expect(prober.ready('c1')).toBe(true);
    expect(changes).toEqual(['u']);
    prober.stop();
  });

  it('reports a liveness failure only after failureThreshold failures in a row, then stops probing', async () => {
    const { prober, calls, unhealthy } = setUp([false, true, false, false, false]);
    prober.update('u', [
      container({ livenessProbe: { exec: { command: ['x'] }, periodSeconds: 1, failureThreshold: 3 } }),
    ]);
    await vi.advanceTimersByTimeAsync(3000);
    expect(prober.failure('c1')).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1000);
    expect(prober.failure('c1')).toEqual({ type: 'Liveness', graceSeconds: undefined });
    await vi.advanceTimersByTimeAsync(5000);
    expect(calls).toHaveLength(5);
    expect(unhealthy).toEqual(Array(4).fill('Liveness probe failed: nope'));
    prober.stop();
  });

  it('holds readiness and liveness until the startup probe succeeds; started follows it', async () => {
    const { prober, calls } = setUp([false, true]);
    prober.update('u', [
      container({
        startupProbe: { exec: { command: ['s'] }, periodSeconds: 1, failureThreshold: 10 },
        readinessProbe: { exec: { command: ['r'] }, periodSeconds: 1 },
      }),
    ]);
    await vi.advanceTimersByTimeAsync(0);
    expect(calls).toHaveLength(1); // startup only
    expect(prober.started('c1')).toBe(false);
    await vi.advanceTimersByTimeAsync(1000);
    expect(prober.started('c1')).toBe(true);
    await vi.advanceTimersByTimeAsync(1000);
    expect(prober.ready('c1')).toBe(true);
    // a container that is gone has its workers stopped
    prober.update('u', []);
    const n = calls.length;
    await vi.advanceTimersByTimeAsync(5000);
    expect(calls).toHaveLength(n);
  });
});
