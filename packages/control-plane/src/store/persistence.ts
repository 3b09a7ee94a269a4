import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import type { KubeObject } from '../registry/types.ts';

/** One stored change: an object (or its deletion) at a resourceVersion. */
export interface PersistedRecord {
  resource: string;
  key: string;
  rv: number;
  obj: KubeObject | null;
}

/**
 * Keeps the store in a directory: `snapshot.json` (everything, written on clean shutdown)
 * plus `wal.jsonl`, one line per committed change since that snapshot. A torn last line
 * (a crash mid-write) is ignored on load, so a change is either wholly there or not at all.
 */
export class Persistence {
  private readonly snapshotPath: string;
  private readonly walPath: string;
  private fd: number | undefined;
  private buffer: string[] = [];
  private timer: NodeJS.Timeout | undefined;

  constructor(dir: string) {
    mkdirSync(dir, { recursive: true });
    this.snapshotPath = join(dir, 'snapshot.json');
    this.walPath = join(dir, 'wal.jsonl');
  }

  /** Every record, oldest first (the snapshot, then the log), and the resourceVersion the snapshot was taken at. */
  load(): { records: PersistedRecord[]; snapshotRV: number } {
    const records: PersistedRecord[] = [];
    let snapshotRV = 0;
    if (existsSync(this.snapshotPath)) {
      const snapshot = JSON.parse(readFileSync(this.snapshotPath, 'utf8')) as {
        rv: number;
        records: PersistedRecord[];
      };
      snapshotRV = snapshot.rv;
      records.push(...snapshot.records);
    }
    if (existsSync(this.walPath)) {
      for (const line of readFileSync(this.walPath, 'utf8').split('\n')) {
        if (!line) continue;
        try {
          records.push(JSON.parse(line));
        } catch {
          // a torn final line from a crash: that change never completed
        }
      }
    }
    this.fd = openSync(this.walPath, 'a');
    return { records, snapshotRV };
  }

  /** Queues one change; lines are written within a few milliseconds, in order. */
  append(record: PersistedRecord): void {
    this.buffer.push(JSON.stringify(record));
    this.timer ??= setTimeout(() => this.flush(), 2);
  }

  /** Writes queued lines now. */
  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.fd === undefined || this.buffer.length === 0) return;
    writeSync(this.fd, `${this.buffer.join('\n')}\n`);
    this.buffer = [];
  }

  /** Writes a fresh snapshot of `records` at resourceVersion `rv`, then empties the log. */
  close(records: () => Iterable<PersistedRecord>, rv: number): void {
    this.flush();
    const tmp = `${this.snapshotPath}.tmp`;
    writeFileSync(tmp, JSON.stringify({ rv, records: [...records()] }));
    renameSync(tmp, this.snapshotPath);
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
    writeFileSync(this.walPath, '');
  }
}
