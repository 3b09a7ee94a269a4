import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** One JSON log line of the daemon, with the time it reached the bench. */
export interface LogLine {
  at: number;
  /** When the daemon logged it (RFC 3339 with milliseconds). */
  time?: string;
  msg: string;
  [key: string]: unknown;
}

/** The node flags of Dockerfile.daemon's ENTRYPOINT (`["node", …flags, "/app/dist/main.js"]`). */
export function dockerfileNodeFlags(root: string): string[] {
  const text = readFileSync(join(root, 'Dockerfile.daemon'), 'utf8');
  const entry = /^ENTRYPOINT\s+(\[.*\])\s*$/m.exec(text);
  if (!entry) throw new Error('Dockerfile.daemon has no exec-form ENTRYPOINT');
  const argv = JSON.parse(entry[1]!) as string[];
  return argv.slice(1, -1);
}

/**
 * The built kruise-daemon as Dockerfile.daemon runs it (its ENTRYPOINT's node flags, `dist/main.js`,
 * NODE_ENV=production, the proto directory beside it), its JSON log lines read as they come.
 */
export class DaemonProcess {
  private readonly child: ChildProcess;
  private readonly waiters: { match: (l: LogLine) => boolean; resolve: (l: LogLine) => void }[] = [];
  private buffered = '';

  private constructor(child: ChildProcess) {
    this.child = child;
    child.stdout!.on('data', (chunk: Buffer) => {
      const at = performance.now();
      this.buffered += chunk.toString('utf8');
      let nl = this.buffered.indexOf('\n');
      while (nl !== -1) {
        const text = this.buffered.slice(0, nl);
        this.buffered = this.buffered.slice(nl + 1);
        nl = this.buffered.indexOf('\n');
        let line: LogLine;
        try {
          line = { ...JSON.parse(text), at };
        } catch {
          continue;
        }
        for (const w of [...this.waiters])
          if (w.match(line)) {
            this.waiters.splice(this.waiters.indexOf(w), 1);
            w.resolve(line);
          }
      }
    });
  }

  /** Starts the daemon of `node` and waits until it says it started. */
  static async start(root: string, args: string[]): Promise<DaemonProcess> {
    const child = spawn(
      join(root, 'node_modules/node/bin/node'),
      [...dockerfileNodeFlags(root), join(root, 'packages/daemon/dist/main.js'), ...args],
      {
        stdio: ['ignore', 'pipe', 'inherit'],
        env: { ...process.env, NODE_ENV: 'production', KRUISE_PROTO_DIR: join(root, 'proto') },
      },
    );
    const daemon = new DaemonProcess(child);
    const exited = new Promise<never>((_, reject) =>
      child.once('exit', (code) => reject(new Error(`kruise-daemon exited with ${code}`))),
    );
    await Promise.race([daemon.logged((l) => l.msg === 'kruise-daemon started'), exited]);
    return daemon;
  }

  /** Resolves with the first log line from now on that `match` accepts. */
  logged(match: (l: LogLine) => boolean): Promise<LogLine> {
    return new Promise((resolve) => this.waiters.push({ match, resolve }));
  }

  /** Resident set size now, in MB. */
  rssMB(): number {
    const status = readFileSync(`/proc/${this.child.pid}/status`, 'utf8');
    return Number(/VmRSS:\s+(\d+)/.exec(status)![1]) / 1024;
  }

  /** CPU time used so far (user + system), in ms. */
  cpuMs(): number {
    const stat = readFileSync(`/proc/${this.child.pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime and stime, fields 14 and 15 of /proc/PID/stat, in clock ticks of 10 ms.
    return (Number(fields[11]) + Number(fields[12])) * 10;
  }

  /** SIGTERM, and waits for the exit. */
  async stop(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = new Promise((r) => this.child.once('exit', r));
    this.child.kill('SIGTERM');
    await exited;
  }
}
