import { type Goal, goalOf, goalText, meets } from './goals.ts';
import { fmt, median } from './stats.ts';

/** One measured figure: a sample per round. */
export interface Figure {
  id: string;
  label: string;
  unit: string;
  samples: number[];
  median: number;
  min: number;
  max: number;
  goal?: Goal;
  /** Whether the goal is met (undefined without a goal). */
  met?: boolean;
}

/** Every figure reported in this run, in order (the runner reads it for the summary and `--check`). */
export const reported: Figure[] = [];

/** Where figure lines go (the runner's tests collect them). */
export let print: (line: string) => void = (line) => console.log(line);

/** Sends figure lines elsewhere (for tests); returns the previous printer. */
export function printTo(printer: (line: string) => void): (line: string) => void {
  const previous = print;
  print = printer;
  return previous;
}

/** `median 12.3 ms, spread 11.9–14.0 (3 rounds: 12.3, 11.9, 14.0)`. */
export function describe(samples: number[], unit: string, digits: number): string {
  const f = (n: number) => fmt(n, digits);
  const sep = unit === '%' || unit === 'x' || unit === '/s' ? '' : ' ';
  return `median ${f(median(samples))}${sep}${unit}, spread ${f(Math.min(...samples))}–${f(Math.max(...samples))} (${samples.length} round${samples.length === 1 ? '' : 's'}: ${samples.map(f).join(', ')})`;
}

/**
 * Reports a figure: one sample per round. If `id` is in the goals table (goals.ts) its goal is
 * checked — on the median, or on every round for an `every` goal — and the line says whether it is
 * met. Other ids are printed for information. Returns the figure.
 */
export function figure(
  id: string,
  samples: number[],
  options: { label?: string; unit?: string; digits?: number } = {},
): Figure {
  const goal = goalOf(id);
  const unit = options.unit ?? goal?.unit ?? '';
  const digits = options.digits ?? 1;
  const med = median(samples);
  const met =
    goal === undefined
      ? undefined
      : samples.length > 0 && (goal.of === 'every' ? samples.every((s) => meets(goal, s)) : meets(goal, med));
  const fig: Figure = {
    id,
    label: options.label ?? goal?.what ?? id,
    unit,
    samples,
    median: med,
    min: Math.min(...samples),
    max: Math.max(...samples),
    goal,
    met,
  };
  reported.push(fig);
  const verdict = goal ? `  goal ${goalText(goal)}: ${met ? 'met' : 'MISSED'}` : '';
  print(`  ${fig.label}: ${describe(samples, unit, digits)}${verdict}`);
  return fig;
}

/** How side-by-side rounds are run. */
export interface SideBySideOptions {
  /**
   * Rounds run first and not counted (each entry once, in order), so that no counted round pays
   * for a first time: JIT compilation, connection pools, caches, the runtime's first use.
   */
  warmup?: number;
  /** Runs before each entry of each round (warm-up included), e.g. a wait for a quiet machine. */
  before?: () => Promise<unknown>;
}

/**
 * Runs side-by-side measurements for `rounds` rounds (at least 3), alternating their order each
 * round — A B, B A, A B … — so neither always runs first (on a warmer cache, a quieter machine).
 * Each entry is called with the round number and returns that round's sample; warm-up rounds get
 * negative round numbers. Prints the order.
 */
export async function sideBySide<K extends string>(
  rounds: number,
  entries: Record<K, (round: number) => Promise<number>>,
  options: SideBySideOptions = {},
): Promise<Record<K, number[]>> {
  if (rounds < 3) throw new Error(`side-by-side figures need at least 3 rounds, not ${rounds}`);
  const names = Object.keys(entries) as K[];
  const out = Object.fromEntries(names.map((n) => [n, [] as number[]])) as Record<K, number[]>;
  const warmup = options.warmup ?? 0;
  for (let round = -warmup; round < 0; round++)
    for (const name of names) {
      await options.before?.();
      await entries[name](round);
    }
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? names : [...names].reverse();
    for (const name of order) {
      await options.before?.();
      out[name].push(await entries[name](round));
    }
  }
  print(
    `  (${rounds} rounds${warmup ? ` after ${warmup} warm-up round${warmup > 1 ? 's' : ''} not counted` : ''}, order alternating: ${names.join(' ')} / ${[...names].reverse().join(' ')})`,
  );
  return out;
}
