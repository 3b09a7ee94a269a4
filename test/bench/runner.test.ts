import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { figure, printTo, sideBySide } from './figures.ts';
import { GOALS, goalsOfSuite } from './goals.ts';
import { runBench, type Suite } from './runner.ts';

let lines: string[] = [];
let restore: (line: string) => void;
beforeEach(() => {
  lines = [];
  restore = printTo((l) => lines.push(l));
});
afterEach(() => printTo(restore));

/** A suite named `name` that reports each of its goals at `value(id)` in three rounds. */
const reporting = (name: string, value: (id: string) => number[] | undefined): Suite => ({
  name,
  title: name,
  run: async () => {
    for (const id of goalsOfSuite(name)) {
      const samples = value(id);
      if (samples) figure(id, samples);
    }
  },
});
/** Three samples that meet the goal of `id` with room to spare. */
const meeting = (id: string) => {
  const g = (GOALS as Record<string, { atMost?: number; atLeast?: number }>)[id]!;
  const v = g.atMost !== undefined ? g.atMost / 2 : g.atLeast! * 2;
  return [v, v, v];
};

describe('pnpm bench -- --check', () => {
  it('exits 0 when every goal of the suites that ran is met', async () => {
    expect(await runBench([reporting('manager', meeting)], ['--', '--check'])).toBe(0);
    expect(lines.filter((l) => l.includes('goal') && l.includes('met'))).not.toHaveLength(0);
  });

  it('exits 1 when a figure misses its goal, and says which', async () => {
    const suite = reporting('manager', (id) =>
      id === 'manager.fanout-1000' ? [3.5, 3.4, 2.9] : meeting(id),
    );
    expect(await runBench([suite], ['--check'])).toBe(1);
    expect(lines.find((l) => l.startsWith('  manager.fanout-1000:'))).toMatch(/MISSED/);
    // Without --check the figures are printed and the run succeeds.
    expect(await runBench([suite], [])).toBe(0);
  });

  it('fails a goal of its own that a suite left unmeasured', async () => {
    const suite = reporting('manager', (id) => (id === 'manager.rss' ? undefined : meeting(id)));
    expect(await runBench([suite], ['--check'])).toBe(1);
    expect(lines).toContain(`  manager.rss: NOT MEASURED (goal <= ${GOALS['manager.rss'].atMost} MB)`);
  });

  it('checks an every-round goal on each round, not on the median', async () => {
    const suite = reporting('crr', (id) => (id === 'crr.stop-p99' ? [300, 1200, 300] : meeting(id)));
    expect(await runBench([suite], ['--check'])).toBe(1);
    expect(lines.find((l) => l.startsWith('  crr.stop-p99:'))).toMatch(/MISSED/);
  });

  it('fails a suite that throws, runs the others, and reports its goals unmeasured', async () => {
    const broken: Suite = {
      name: 'admission',
      title: 'admission',
      run: () => Promise.reject(new Error('no webhook')),
    };
    expect(await runBench([broken, reporting('manager', meeting)], [])).toBe(1);
    expect(lines.join('\n')).toMatch(/SUITE FAILED: Error: no webhook/);
    expect(lines.find((l) => l.startsWith('  admission.p99:'))).toMatch(/NOT MEASURED \(suite failed\)/);
    expect(lines.find((l) => l.startsWith('  manager.rss:'))).toMatch(/met$/);
  });

  it('runs only the suites --only names, and refuses unknown ones', async () => {
    const ran: string[] = [];
    const suite = (name: string): Suite => ({ name, title: name, run: async () => void ran.push(name) });
    const suites = [suite('runtime'), suite('manager'), suite('crr')];
    await runBench(suites, ['--only', 'runtime', '--only=crr']);
    expect(ran).toEqual(['runtime', 'crr']);
    expect(await runBench(suites, ['--only', 'nope'])).toBe(2);
    expect(lines.at(-1)).toBe('unknown suite nope; suites: runtime, manager, crr');
    expect(await runBench(suites, ['--bogus'])).toBe(2);
  });
});

describe('side-by-side figures', () => {
  it('alternate their order every round', async () => {
    const calls: string[] = [];
    const out = await sideBySide(4, {
      ours: async (r) => {
        calls.push(`ours${r}`);
        return r;
      },
      theirs: async (r) => {
        calls.push(`theirs${r}`);
        return 10 + r;
      },
    });
    expect(calls).toEqual(['ours0', 'theirs0', 'theirs1', 'ours1', 'ours2', 'theirs2', 'theirs3', 'ours3']);
    expect(out).toEqual({ ours: [0, 1, 2, 3], theirs: [10, 11, 12, 13] });
  });

  it('take at least three rounds', async () => {
    await expect(sideBySide(2, { a: async () => 1, b: async () => 2 })).rejects.toThrow(/at least 3 rounds/);
  });

  it('print the median and the spread of the rounds', () => {
    figure('x.info', [12, 10, 15], { label: 'x', unit: 'ms' });
    expect(lines.at(-1)).toBe('  x: median 12.0 ms, spread 10.0–15.0 (3 rounds: 12.0, 10.0, 15.0)');
  });
});

describe('pnpm bench (run.ts)', () => {
  const run = (...args: string[]) =>
    spawnSync(
      process.execPath,
      ['--conditions=source', fileURLToPath(new URL('./run.ts', import.meta.url)), ...args],
      {
        encoding: 'utf8',
      },
    );

  it("exits with the runner's code: 2 for an unknown suite, 0 for --list with every goal listed", () => {
    const bad = run('--', '--only', 'nope');
    expect(bad.status).toBe(2);
    expect(bad.stdout).toContain('unknown suite nope');
    const list = run('--', '--list');
    expect(list.status).toBe(0);
    for (const id of Object.keys(GOALS)) expect(list.stdout).toContain(`  ${id}: `);
  });
});
