import { readFileSync } from 'node:fs';

/** The machine's busy and total CPU time so far (`/proc/stat`, all CPUs, in clock ticks). */
function cpuTicks(): { busy: number; total: number } {
  // user … steal; guest and guest_nice (after them) are already counted in user and nice
  const fields = readFileSync('/proc/stat', 'utf8')
    .split('\n')[0]!
    .trim()
    .split(/\s+/)
    .slice(1, 9)
    .map(Number);
  const total = fields.reduce((a, b) => a + b, 0);
  // idle and iowait are the machine waiting
  return { busy: total - fields[3]! - (fields[4] ?? 0), total };
}

/**
 * Waits until the machine has been mostly idle (busy below `busyBelow` over one `windowMs`
 * window), at most `maxMs`; resolves with the milliseconds waited. Work a round before left running
 * in the background (status writes, the runtime's and the kernel's cleanup) is then not counted in
 * the next measurement, however long it takes on a given machine.
 */
export async function untilQuiet(busyBelow = 0.2, windowMs = 1000, maxMs = 20_000): Promise<number> {
  const start = Date.now();
  let before = cpuTicks();
  for (;;) {
    await new Promise((r) => setTimeout(r, windowMs));
    const now = cpuTicks();
    const share = (now.busy - before.busy) / Math.max(1, now.total - before.total);
    if (share < busyBelow || Date.now() - start >= maxMs) return Date.now() - start;
    before = now;
  }
}

/** Waits as `untilQuiet` resolved them, in seconds for a figure's caption: `1.0/1.2/1.0`. */
export function formatWaits(waitedMs: number[]): string {
  return waitedMs.map((ms) => (ms / 1000).toFixed(1)).join('/');
}
