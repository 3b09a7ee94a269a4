import { parseArgs } from 'node:util';
import { type Figure, print, reported } from './figures.ts';
import { goalOf, goalsOfSuite, goalText } from './goals.ts';
import { fmt } from './stats.ts';

/** One suite of `pnpm bench`: its short name (the prefix of its goals' ids) and what it runs. */
export interface Suite {
  name: string;
  title: string;
  run: () => Promise<void>;
}

const USAGE = `usage: pnpm bench -- [--only SUITE[,SUITE…]] [--check] [--list]
  --only SUITE  run only these suites (repeatable, or comma-separated)
  --check       exit 1 when a figure misses its goal, a goal goes unmeasured or a suite fails
  --list        list the suites and their goals, run nothing`;

/** The verdict line of one goal in the summary, and whether it passes. */
function verdict(id: string, figures: Figure[], suiteFailed: boolean): { line: string; ok: boolean } {
  const goal = goalOf(id)!;
  const mine = figures.filter((f) => f.id === id);
  if (mine.length === 0)
    return {
      line: `${id}: NOT MEASURED${suiteFailed ? ' (suite failed)' : ''} (goal ${goalText(goal)})`,
      ok: false,
    };
  const ok = mine.every((f) => f.met);
  const values = mine.map(
    (f) => `${fmt(f.median, 2)} ${f.unit} [${f.samples.map((s) => fmt(s, 2)).join(', ')}]`,
  );
  return { line: `${id}: ${values.join('; ')} (goal ${goalText(goal)}) ${ok ? 'met' : 'MISSED'}`, ok };
}

/**
 * Runs the suites `argv` selects and prints a summary of every goal of the suites that ran.
 * Resolves with the exit code: 2 on bad arguments; 1 when a suite threw, or (with `--check`) when
 * a goal was missed or left unmeasured; else 0.
 */
export async function runBench(suites: Suite[], argv: string[]): Promise<number> {
  let values: { only?: string[]; check?: boolean; list?: boolean; help?: boolean };
  try {
    values = parseArgs({
      args: argv.filter((a) => a !== '--'),
      options: {
        only: { type: 'string', multiple: true },
        check: { type: 'boolean' },
        list: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
      allowPositionals: false,
    }).values;
  } catch (err) {
    print(`${(err as Error).message}\n${USAGE}`);
    return 2;
  }
  if (values.help) {
    print(USAGE);
    return 0;
  }
  const only = values.only?.flatMap((o) => o.split(',')).filter(Boolean);
  const unknown = only?.filter((o) => !suites.some((s) => s.name === o)) ?? [];
  if (unknown.length > 0) {
    print(`unknown suite ${unknown.join(', ')}; suites: ${suites.map((s) => s.name).join(', ')}`);
    return 2;
  }
  const selected = only ? suites.filter((s) => only.includes(s.name)) : suites;
  if (values.list) {
    for (const s of selected) {
      print(`${s.name}: ${s.title}`);
      for (const id of goalsOfSuite(s.name))
        print(`  ${id}: ${goalOf(id)!.what}, goal ${goalText(goalOf(id)!)}`);
    }
    return 0;
  }
  reported.length = 0;
  const failed = new Set<string>();
  for (const suite of selected) {
    print(`== ${suite.title} (${suite.name})`);
    // One suite's garbage is collected before the next one measures (the control plane of most
    // suites runs in this process): a full collection now, not a long pause in the next suite.
    (globalThis as { gc?: () => void }).gc?.();
    try {
      await suite.run();
    } catch (err) {
      failed.add(suite.name);
      print(`  SUITE FAILED: ${(err as Error).stack ?? err}`);
    }
  }
  print('== goals');
  let allMet = true;
  for (const suite of selected)
    for (const id of goalsOfSuite(suite.name)) {
      const v = verdict(id, reported, failed.has(suite.name));
      allMet &&= v.ok;
      print(`  ${v.line}`);
    }
  if (failed.size > 0) print(`suites failed: ${[...failed].join(', ')}`);
  if (failed.size > 0) return 1;
  if (values.check && !allMet) {
    print('bench --check: a goal was missed or not measured');
    return 1;
  }
  return 0;
}
