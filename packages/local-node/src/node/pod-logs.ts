import { existsSync, mkdirSync, readdirSync, rmdirSync, rmSync, statSync } from 'node:fs';
import { type FileHandle, open } from 'node:fs/promises';
import { join } from 'node:path';

/** What names a pod's log directory. */
type PodIdentity = { metadata: { namespace: string; name: string; uid: string } };

/** The restart count of a container log file name (`<restartCount>.log`), or undefined for other files. */
function attemptOf(file: string): number | undefined {
  const m = /^(\d+)\.log$/.exec(file);
  return m ? Number(m[1]) : undefined;
}

/**
 * Container logs as kubelet lays them out: one directory per pod, `<namespace>_<name>_<uid>`, under
 * the node's pod-logs root (kubelet: /var/log/pods), and in it `<container>/<restartCount>.log`,
 * written by the runtime in the CRI log format (`<RFC3339Nano> <stream> <F|P> <text>`).
 */
export class PodLogs {
  readonly root: string;

  constructor(root: string) {
    this.root = root;
  }

  /** The pod's log directory (CRI `log_directory`). */
  podDirectory(pod: PodIdentity): string {
    const m = pod.metadata;
    return join(this.root, `${m.namespace}_${m.name}_${m.uid}`);
  }

  /**
   * Where a container's log goes at restart `attempt`, its directory created: the pod's directory
   * (CRI `log_directory`) and the path relative to it (CRI `log_path`).
   */
  prepareContainerLog(
    pod: PodIdentity,
    container: string,
    attempt: number,
  ): { directory: string; path: string } {
    const directory = this.podDirectory(pod);
    mkdirSync(join(directory, container), { recursive: true });
    return { directory, path: join(container, `${attempt}.log`) };
  }

  /** Removes a container's log files older than restart `keepFrom` (kubelet keeps the last dead one). */
  prune(pod: PodIdentity, container: string, keepFrom: number): void {
    const dir = join(this.podDirectory(pod), container);
    if (!existsSync(dir)) return;
    for (const f of readdirSync(dir)) {
      const attempt = attemptOf(f);
      if (attempt !== undefined && attempt < keepFrom) rmSync(join(dir, f), { force: true });
    }
  }

  /** Removes the root when no pod has logs in it (when the node stops). */
  removeRootIfEmpty(): void {
    try {
      rmdirSync(this.root);
    } catch {
      // not empty (containers left running keep their logs), or already gone
    }
  }

  /** Removes the log directories of a pod UID (when the pod is gone). */
  removePod(uid: string): void {
    if (!existsSync(this.root)) return;
    for (const d of readdirSync(this.root))
      if (d.endsWith(`_${uid}`)) rmSync(join(this.root, d), { recursive: true, force: true });
  }

  /**
   * The log files of one container of a pod, newest restart first; the newest pod directory wins
   * when a pod of that name was recreated.
   */
  files(namespace: string, pod: string, container: string): string[] {
    if (!existsSync(this.root)) return [];
    const prefix = `${namespace}_${pod}_`;
    const dirs = readdirSync(this.root)
      .filter((d) => d.startsWith(prefix) && !d.slice(prefix.length).includes('_'))
      .map((d) => ({ path: join(this.root, d), mtimeMs: statSync(join(this.root, d)).mtimeMs }))
      .sort((a, b) => b.mtimeMs - a.mtimeMs);
    const dir = dirs.map((d) => join(d.path, container)).find((d) => existsSync(d));
    if (!dir) return [];
    return readdirSync(dir)
      .map((f) => ({ f, attempt: attemptOf(f) }))
      .filter((x): x is { f: string; attempt: number } => x.attempt !== undefined)
      .sort((a, b) => b.attempt - a.attempt)
      .map((x) => join(dir, x.f));
  }
}

/** What `kubectl logs` asks for (kubelet's PodLogOptions). */
export interface LogQuery {
  timestamps?: boolean;
  tailLines?: number;
  limitBytes?: number;
  /** Only lines at or after this time (epoch ms). */
  sinceMs?: number;
}

/** One parsed line of a CRI log file. */
interface LogLine {
  time: string;
  text: string;
  /** F: the line ends here; P: a partial line continued by the next entry. */
  full: boolean;
}

function parseLine(raw: string): LogLine | undefined {
  const a = raw.indexOf(' ');
  const b = raw.indexOf(' ', a + 1);
  const c = raw.indexOf(' ', b + 1);
  if (a < 0 || b < 0) return undefined;
  const tag = c < 0 ? raw.slice(b + 1) : raw.slice(b + 1, c);
  return { time: raw.slice(0, a), text: c < 0 ? '' : raw.slice(c + 1), full: tag.split(':')[0] !== 'P' };
}

/** Renders parsed lines as kubelet returns them: the text, a newline after full lines, timestamps if asked. */
function render(lines: LogLine[], q: LogQuery): string {
  let out = '';
  let atLineStart = true;
  for (const l of lines) {
    if (q.timestamps && atLineStart) out += `${l.time} `;
    out += l.text;
    if (l.full) out += '\n';
    atLineStart = l.full;
  }
  return out;
}

/** Opens a container's log file for following (undefined if it is already gone). */
export function openLog(file: string): Promise<FileHandle | undefined> {
  return open(file, 'r').catch(() => undefined);
}

/**
 * Reads a CRI log file (a path, or a handle that stays open) from `offset`: the rendered text of its complete entries and the offset after
 * them (a trailing entry still being written is left for the next read).
 */
export async function readLog(
  file: string | FileHandle,
  offset: number,
  q: LogQuery,
): Promise<{ text: string; offset: number }> {
  const handle = typeof file === 'string' ? await open(file, 'r').catch(() => undefined) : file;
  if (!handle) return { text: '', offset };
  try {
    const { size } = await handle.stat();
    if (size <= offset) return { text: '', offset };
    const buf = Buffer.alloc(size - offset);
    await handle.read(buf, 0, buf.length, offset);
    const end = buf.lastIndexOf(0x0a) + 1;
    const lines = buf
      .subarray(0, end)
      .toString('utf8')
      .split('\n')
      .filter((l) => l !== '')
      .map(parseLine)
      .filter((l): l is LogLine => l !== undefined)
      .filter((l) => q.sinceMs === undefined || Date.parse(l.time) >= q.sinceMs);
    return { text: render(lines, q), offset: offset + end };
  } finally {
    if (typeof file === 'string') await handle.close();
  }
}

/** The last `n` lines of rendered text (kubectl logs --tail). */
export function lastLines(text: string, n: number): string {
  if (n < 0) return text;
  if (n === 0) return '';
  const lines = text.split('\n');
  const trailing = lines.at(-1) === '' ? lines.pop() : undefined;
  return lines.slice(-n).join('\n') + (trailing === '' ? '\n' : '');
}
