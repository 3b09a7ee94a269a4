import { appendFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { cleanUpAfter, readRunRecord, removeRunRecord, runs, STACK_ENTRY } from './leftovers.ts';

/**
 * The local stack's watchdog, `watchdog.ts STATE_DIR`: `pnpm start` starts it in a session of its
 * own (a signal or SIGKILL to the stack's process group, as `timeout -k`, systemd or a CI runner
 * send, does not reach it) with a pipe on its stdin whose other end only the stack holds. The
 * stack writes `stopped` once it has stopped everything itself. When the pipe ends without that —
 * the stack was killed, even halfway through stopping — the watchdog stops what the stack left, by
 * the PIDs recorded in STATE_DIR/run.json, notes it in STATE_DIR/logs/watchdog.log, and exits.
 */
const stateDir = process.argv[2]!;
let stopped = false;
process.stdin.on('data', (chunk) => {
  if (String(chunk).includes('stopped')) stopped = true;
});
process.stdin.on('end', async () => {
  const record = readRunRecord(stateDir);
  if (!stopped && record && !runs(record.pid, STACK_ENTRY)) {
    const found = await cleanUpAfter(record);
    removeRunRecord(stateDir);
    mkdirSync(join(stateDir, 'logs'), { recursive: true });
    appendFileSync(
      join(stateDir, 'logs/watchdog.log'),
      `${new Date().toISOString()} pnpm start (pid ${record.pid}) was killed; stopped what it left: ${found.join(', ') || 'nothing was running'}\n`,
    );
  }
  process.exit(0);
});
