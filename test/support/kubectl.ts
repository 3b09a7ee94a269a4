import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { kubectlPath } from './kube-tools.ts';

/** What a kubectl run printed and how it exited. */
export interface KubectlResult {
  stdout: string;
  stderr: string;
  status: number | null;
}

/**
 * Runs the real kubectl against `kubeconfig` without blocking the event loop (an embedded control
 * plane answers from the test's own process), feeding `input` to its stdin.
 */
export function kubectl(kubeconfig: string, args: string[], input?: string): Promise<KubectlResult> {
  return new Promise((resolve) => {
    const child = spawn(kubectlPath(), ['--kubeconfig', kubeconfig, ...args]);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    child.on('close', (status) => resolve({ stdout, stderr, status }));
    child.stdin.end(input ?? '');
  });
}

/** kubectl bound to one cluster's admin kubeconfig, kept in a scratch folder. */
export interface KubectlSession {
  kubeconfig: string;
  /** Runs kubectl (never rejects). */
  kubectl(args: string[], input?: string): Promise<KubectlResult>;
  /** Runs kubectl and resolves with its stdout; rejects with its stderr when it fails. */
  ok(args: string[], input?: string): Promise<string>;
  /** Runs kubectl, which must fail, and resolves with its stderr, trimmed (what the user reads). */
  refusal(args: string[], input?: string): Promise<string>;
  /** Removes the scratch folder. */
  dispose(): void;
}

/** A {@link KubectlSession} for a cluster that writes its admin kubeconfig (the embedded control plane). */
export function kubectlSession(
  cluster: { writeKubeconfig(path: string): void },
  prefix = 'kubectl-',
): KubectlSession {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const kubeconfig = join(dir, 'kubeconfig');
  cluster.writeKubeconfig(kubeconfig);
  const run = (args: string[], input?: string) => kubectl(kubeconfig, args, input);
  return {
    kubeconfig,
    kubectl: run,
    ok: async (args, input) => {
      const r = await run(args, input);
      if (r.status !== 0) throw new Error(`kubectl ${args.join(' ')}: ${r.stderr}`);
      return r.stdout;
    },
    refusal: async (args, input) => {
      const r = await run(args, input);
      if (r.status === 0) throw new Error(`kubectl ${args.join(' ')} succeeded: ${r.stdout}`);
      return r.stderr.trim();
    },
    dispose: () => rmSync(dir, { recursive: true, force: true }),
  };
}
