import { describe, expect, it, vi } from 'vitest';
import {
  BucketRateLimiter,
  defaultControllerRateLimiter,
  ItemExponentialRateLimiter,
  WorkQueue,
} from '../src/index.ts';

describe('WorkQueue', () => {
  it('queues an item once however often it is added', async () => {
    const q = new WorkQueue();
    q.add('a');
    q.add('a');
    q.add('b');
    expect(q.len()).toBe(2);
    expect(await q.get()).toBe('a');
    expect(await q.get()).toBe('b');
  });

  it('never hands an item to two workers, and re-queues it once when added during processing', async () => {
    const q = new WorkQueue();
    q.add('a');
    const first = await q.get();
    q.add('a');
    q.add('a');
    expect(q.len()).toBe(0);
    let second: string | undefined;
    void q.get().then((v) => (second = v));
    await new Promise((r) => setTimeout(r, 10));
    expect(second).toBeUndefined();
    q.done(first!);
    await new Promise((r) => setTimeout(r, 0));
    expect(second).toBe('a');
    q.done('a');
    expect(q.len()).toBe(0);
  });

  it('adds after a delay, keeping the earliest', async () => {
    // The queue's own clock, not the machine's: a loaded machine cannot make this late.
    vi.useFakeTimers();
    try {
      const q = new WorkQueue();
      q.addAfter('x', 200);
      q.addAfter('x', 20);
      vi.advanceTimersByTime(19);
      expect(q.len()).toBe(0);
      vi.advanceTimersByTime(1);
      expect(q.len()).toBe(1);
      expect(await q.get()).toBe('x');
      q.done('x');
      vi.advanceTimersByTime(300);
      expect(q.len()).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });

  it('shuts down with drain: queued items are still handed out, then get resolves undefined', async () => {
    const q = new WorkQueue();
    q.add('a');
    q.add('b');
    const drained = q.shutDownWithDrain();
    const a = await q.get();
    q.done(a!);
    const b = await q.get();
    q.done(b!);
    await drained;
    expect(await q.get()).toBeUndefined();
    q.add('c');
    expect(q.len()).toBe(0);
  });
});

describe('rate limiters', () => {
  it('backs off per item exponentially from 5 ms to a cap, and forgets', () => {
    const r = new ItemExponentialRateLimiter<string>(5, 1000_000);
    expect([r.when('a'), r.when('a'), r.when('a'), r.when('b')]).toEqual([5, 10, 20, 5]);
    for (let i = 0; i < 40; i++) r.when('a');
    expect(r.when('a')).toBe(1000_000);
    expect(r.numRequeues('a')).toBe(44);
    r.forget('a');
    expect(r.when('a')).toBe(5);
  });

  it('lets a burst through the bucket, then spaces items at the rate', () => {
    const r = new BucketRateLimiter<string>(10, 100);
    const delays = Array.from({ length: 102 }, (_, i) => r.when(`k${i}`));
    expect(delays.slice(0, 100).every((d) => d === 0)).toBe(true);
    expect(delays[100]).toBeGreaterThan(50);
    expect(delays[101]).toBeGreaterThan(delays[100]!);
  });

  it('takes the larger of both by default', () => {
    const r = defaultControllerRateLimiter<string>();
    expect(r.when('a')).toBe(5);
    expect(r.when('a')).toBe(10);
  });
});
