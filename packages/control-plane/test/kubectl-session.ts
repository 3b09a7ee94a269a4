import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KUBECTL_NEWEST, type KubectlVersion, kubectlPath } from '../../../test/support/kube-tools.ts';
import type { ControlPlane } from '../src/index.ts';
import { startControlPlane } from './helpers.ts';

/** What a command printed and how it exited. */
export interface CommandResult {
  code: number;
  out: string;
  err: string;
}

/** Runs a binary with input on stdin; never rejects. */
export function run(
  bin: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  input?: string,
): Promise<CommandResult> {
  return new Promise((resolve) => {
    const child = execFile(bin, args, { env, timeout: 30_000 }, (error, out, err) =>
      resolve({ code: error ? ((error as any).code ?? 1) : 0, out, err }),
    );
    child.stdin?.end(input ?? '');
  });
}

/** A control plane with a kubeconfig in a scratch directory, and the pinned kubectl pointed at it. */
export class KubectlSession {
  readonly cp: ControlPlane;
  readonly dir: string;
  readonly env: NodeJS.ProcessEnv;
  private readonly bin: string;

  private constructor(cp: ControlPlane, dir: string, version: KubectlVersion) {
    this.cp = cp;
    this.dir = dir;
    this.bin = kubectlPath(version);
    this.env = { ...process.env, KUBECONFIG: join(dir, 'kubeconfig'), HOME: dir };
  }

  /** Starts a control plane and writes its admin kubeconfig. */
  static async start(version: KubectlVersion = KUBECTL_NEWEST): Promise<KubectlSession> {
    const cp = await startControlPlane();
    const dir = mkdtempSync(join(tmpdir(), 'kubectl-'));
    cp.writeKubeconfig(join(dir, 'kubeconfig'));
    return new KubectlSession(cp, dir, version);
  }

  /** Runs kubectl. */
  kubectl(args: string[], input?: string): Promise<CommandResult> {
    return run(this.bin, args, this.env, input);
  }

  /** Stops the control plane and removes the directory. */
  async stop(): Promise<void> {
    await this.cp.stop();
    rmSync(this.dir, { recursive: true, force: true });
  }
}
