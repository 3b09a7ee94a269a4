import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { kubectlPath } from '../../../test/support/kube-tools.ts';
import type { ControlPlane } from '../src/index.ts';

/** The outcome of one kubectl run. */
export interface KubectlResult {
  code: number;
  out: string;
  err: string;
}

/** Runs the pinned kubectl (newest) against a control plane with the admin kubeconfig; `dispose` removes it. */
export function kubectlFor(cp: ControlPlane): {
  kubectl: (args: string[], input?: string) => Promise<KubectlResult>;
  dispose: () => void;
} {
  const dir = mkdtempSync(join(tmpdir(), 'kubectl-'));
  cp.writeKubeconfig(join(dir, 'kubeconfig'));
  const bin = kubectlPath();
  const kubectl = (args: string[], input?: string): Promise<KubectlResult> =>
    new Promise((resolve) => {
      const child = execFile(
        bin,
        args,
        { env: { ...process.env, KUBECONFIG: join(dir, 'kubeconfig') }, timeout: 60_000 },
        (error, out, err) => resolve({ code: error ? ((error as any).code ?? 1) : 0, out, err }),
      );
      child.stdin?.end(input ?? '');
    });
  return { kubectl, dispose: () => rmSync(dir, { recursive: true, force: true }) };
}
