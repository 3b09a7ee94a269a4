import { describe, expect, it } from 'vitest';
import { Controller, ItemExponentialRateLimiter, Metrics, TerminalError } from '../src/index.ts';
import { eventually, sleep } from './env.ts';

describe('Controller', () => {
  it('reconciles a key added while in flight exactly once more', async () => {
    let runs = 0;
    let concurrent = 0;
    let maxConcurrent = 0;
    let release: () => void = () => undefined;
    const controller = new Controller({
      name: 'inflight',
      workers: 4,
      reconcile: async () => {
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
    await sleep(30);
    expect(runs).toBe(1);
    release();
    await eventually(() => runs === 2);
    await sleep(50);
    expect(runs).toBe(2);
    expect(maxConcurrent).toBe(1);
    await controller.stop();
  });

  it('retries errors with backoff, stops on TerminalError, survives non-Error throws and honours requeueAfter', async () => {
    const metrics = new Metrics();
    const attempts = new Map<string, number>();
    const controller = new Controller({
      name: 'errors',
      workers: 2,
      metrics,
      rateLimiter: new ItemExponentialRateLimiter(5, 50),
      reconcile: async (_ctx, key) => {
        const n = (attempts.get(key) ?? 0) + 1;
        attempts.set(key, n);
        if (key === 'flaky' && n < 3) throw new Error('not yet');
        if (key === 'terminal') throw new TerminalError('bad spec');
        if (key === 'panic' && n < 2) throw 'a string';
        if (key === 'later' && n < 2) return { requeueAfterMs: 50 };
        return undefined;
      },
    });
    controller.start();
    for (const k of ['flaky', 'terminal', 'panic', 'later']) controller.enqueue(k);
    await eventually(
      () => attempts.get('flaky') === 3 && attempts.get('panic') === 2 && attempts.get('later') === 2,
    );
    // The last reconciles are counted once they return; then a while for a terminal error's retry
    // that must not come.
    await eventually(() => controller.counts.success === 3);
    await sleep(100);
    expect(attempts.get('terminal')).toBe(1);
    expect(controller.counts).toMatchObject({ terminal: 1, requeueAfter: 1 });
    const text = await metrics.expose();
    expect(text).toContain('controller_runtime_reconcile_total{controller="errors",result="success"} 3');
    expect(text).toContain('controller_runtime_terminal_reconcile_errors_total{controller="errors"} 1');
    expect(text).toContain('controller_runtime_reconcile_panics_total{controller="errors"} 1');
    expect(text).toMatch(/workqueue_adds_total\{name="errors",controller="errors"\} \d+/);
    await controller.stop();
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
    await sleep(10);
    await controller.stop();
    expect(finished).toBe(true);
  });
});
