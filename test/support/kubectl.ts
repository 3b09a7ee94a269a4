import { spawn } from 'node:child_process';
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
