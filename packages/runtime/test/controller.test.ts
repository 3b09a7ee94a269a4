import { describe, expect, it } from 'vitest';
import { Controller, ItemExponentialRateLimiter, Metrics, TerminalError } from '../src/index.ts';
import { eventually, sleep } from './env.ts';

describe('Controller', () => {
  it('reconciles a key added while in flight exactly once more', async () => {
    let runs = 0;
    let concurrent = 0;
    let maxConcurrent = 0;
    let release: () => void = () => undefined;
    const seen: string[] = [];
    const controller = new Controller({
      name: 'inflight',
      workers: 4,
      reconcile: async (_ctx, key) => {
        seen.push(key);
        if (key.startsWith('marker')) return;
        runs++;
        concurrent++;
        maxConcurrent = Math.max(maxConcurrent, concurrent);
        if (runs === 1) await new Promise<void>((r) => (release = r));
        concurrent--;
      },
    });
    controller.start();
    controller.enqueue('k');
    await eventually(() => runs === 1);
    controller.enqueue('k');
    controller.enqueue('k');
    // A marker queued after the adds: a worker is free, so it runs before anything else could.
    controller.enqueue('marker-1');
    await eventually(() => seen.includes('marker-1'));
    expect(runs).toBe(1);
    release();
    await eventually(() => runs === 2);
    // The second run is the last: a third could only be queued when the second is done, so once
    // nothing is queued or in flight, a third would have run already.
    await eventually(() => controller.queue.len() === 0 && controller.queue.longestRunningSeconds() === 0);
    expect(runs).toBe(2);
    expect(maxConcurrent).toBe(1);
    await controller.stop();
  });

  it('retries errors with backoff, stops on TerminalError, counts errors and panics as controller-runtime does, and honours requeueAfter', async () => {
    const metrics = new Metrics();
    const attempts = new Map<string, number>();
    /** Every key the rate limiter was asked to delay: the only way a failed key comes back. */
    const retried: string[] = [];
    const limiter = new ItemExponentialRateLimiter<string>(5, 50);
    const when = limiter.when.bind(limiter);
    limiter.when = (key) => {
      retried.push(key);
      return when(key);
    };
    const controller = new Controller({
      name: 'errors',
      workers: 2,
      metrics,
      rateLimiter: limiter,
      reconcile: async (_ctx, key) => {
        const n = (attempts.get(key) ?? 0) + 1;
        attempts.set(key, n);
        if (key === 'flaky' && n < 3) throw new Error('not yet');
        if (key === 'terminal') throw new TerminalError('bad spec');
        if (key === 'thrown-string' && n < 2) throw 'a string';
        if (key === 'nil-field' && n < 2) (undefined as unknown as { spec: { x: number } }).spec.x;
        if (key === 'later' && n < 2) return { requeueAfterMs: 50 };
        return undefined;
      },
    });
    controller.start();
    for (const k of ['flaky', 'terminal', 'thrown-string', 'nil-field', 'later']) controller.enqueue(k);
    await eventually(
      () =>
        attempts.get('flaky') === 3 &&
        attempts.get('thrown-string') === 2 &&
        attempts.get('nil-field') === 2 &&
        attempts.get('later') === 2,
    );
    await eventually(() => controller.counts.success === 4);
    expect(attempts.get('terminal')).toBe(1);
    expect(retried.filter((k) => k === 'terminal')).toEqual([]);
    expect(retried.sort()).toEqual(['flaky', 'flaky', 'nil-field', 'thrown-string']);
    expect(controller.counts).toMatchObject({ terminal: 1, requeueAfter: 1, error: 4, panic: 2 });
    const text = await metrics.expose();
    expect(text).toContain('controller_runtime_reconcile_total{controller="errors",result="success"} 4');
    // Every exception is a reconcile error: 2 flaky, 1 terminal, 2 panics.
    expect(text).toContain('controller_runtime_reconcile_errors_total{controller="errors"} 5');
    expect(text).toContain('controller_runtime_reconcile_total{controller="errors",result="error"} 5');
    expect(text).toContain('controller_runtime_terminal_reconcile_errors_total{controller="errors"} 1');
    // A TypeError (a field of undefined) and a thrown non-Error are what Go would panic on.
    expect(text).toContain('controller_runtime_reconcile_panics_total{controller="errors"} 2');
    expect(text).toMatch(/workqueue_adds_total\{name="errors",controller="errors"\} \d+/);
    await controller.stop();
  });

  it('runs once: a stopped controller refuses to start again instead of running on a dead queue', async () => {
    const controller = new Controller({ name: 'once', reconcile: async () => undefined });
    controller.start();
    await controller.stop();
    expect(() => controller.start()).toThrow(
      'controller once was stopped: a stopped controller cannot start again',
    );
  });

  it('drains in-flight work on stop', async () => {
    let finished = false;
    const controller = new Controller({
      name: 'drain',
      reconcile: async () => {
        await sleep(100);
        finished = true;
      },
    });
    controller.start();
    controller.enqueue('k');
    await eventually(() => controller.queue.len() === 0 && controller.queue.longestRunningSeconds() > 0);
    await controller.stop();
    expect(finished).toBe(true);
  });
});
