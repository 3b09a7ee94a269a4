import { Writable } from 'node:stream';
import { createLogger } from '@kruise/runtime';
import { describe, expect, it } from 'vitest';
import { ttlAfterFinished } from '../src/controllers/ttl-after-finished.ts';

/** A logger whose lines the test reads. */
function logged() {
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk, _enc, done) {
      lines.push(JSON.parse(String(chunk)));
      done();
    },
  });
  return { lines, log: createLogger({ name: 'test', level: 'info', destination: destination as never }) };
}

const completed = '2026-11-26T10:00:00Z';
const completedMs = Date.parse(completed);

describe('ttlAfterFinished', () => {
  it('asks to look again when the TTL has time left, and to delete once it has run out', () => {
    const { log } = logged();
    expect(ttlAfterFinished(completed, 60, completedMs + 15_000, log)).toEqual({
      action: 'requeue',
      afterMs: 45_000,
    });
    expect(ttlAfterFinished(completed, 60, completedMs + 60_000, log)).toEqual({ action: 'delete' });
    expect(ttlAfterFinished(completed, 0, completedMs, log)).toEqual({ action: 'delete' });
  });

  it('does nothing without a TTL', () => {
    const { log, lines } = logged();
    expect(ttlAfterFinished(completed, undefined, completedMs + 1e9, log)).toEqual({ action: 'nothing' });
    expect(ttlAfterFinished(completed, null, completedMs + 1e9, log)).toEqual({ action: 'nothing' });
    expect(lines).toEqual([]);
  });

  it('keeps an object whose completion time does not parse, and says why', () => {
    const { log, lines } = logged();
    expect(ttlAfterFinished('yesterday', 1, completedMs, log)).toEqual({ action: 'nothing' });
    expect(ttlAfterFinished(undefined, 1, completedMs, log)).toEqual({ action: 'nothing' });
    expect(lines.map((l) => [l.level, l.msg, l.completion])).toEqual([
      ['warn', 'completion time does not parse; ttl not applied', 'yesterday'],
      ['warn', 'completion time does not parse; ttl not applied', null],
    ]);
  });
});
