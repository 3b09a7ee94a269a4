import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { helmPath, kubectlPath } from '../../../test/support/kube-tools.ts';
import type { ControlPlane } from '../src/index.ts';

/** The outcome of one kubectl run. */
export interface KubectlResult {
  code: number;
  out: string;
  err: string;
}

/** Runs a binary with `input` on stdin; never rejects. */
export function runBinary(
  bin: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  input?: string,
): Promise<KubectlResult> {
  return new Promise((resolve) => {
    const child = execFile(bin, args, { env, timeout: 60_000 }, (error, out, err) =>
      resolve({ code: error ? ((error as any).code ?? 1) : 0, out, err }),
    );
    child.stdin?.end(input ?? '');
  });
}

/**
 * Runs the pinned kubectl (newest) and helm against a control plane with the admin kubeconfig,
 * written in a scratch directory (`dir`, also HOME in `env` and helm's cache, config and data
 * homes); `dispose` removes it.
 */
export function kubectlFor(cp: ControlPlane): {
  kubectl: (args: string[], input?: string) => Promise<KubectlResult>;
  helm: (args: string[]) => Promise<KubectlResult>;
  dispose: () => void;
  dir: string;
  env: NodeJS.ProcessEnv;
} {
  const dir = mkdtempSync(join(tmpdir(), 'kubectl-'));
  cp.writeKubeconfig(join(dir, 'kubeconfig'));
  const bin = kubectlPath();
  const env = { ...process.env, KUBECONFIG: join(dir, 'kubeconfig'), HOME: dir };
  const kubectl = (args: string[], input?: string) => runBinary(bin, args, env, input);
  const helmEnv = {
    ...env,
    HELM_CACHE_HOME: join(dir, 'cache'),
    HELM_CONFIG_HOME: join(dir, 'config'),
    HELM_DATA_HOME: join(dir, 'data'),
  };
  const helm = (args: string[]) => runBinary(helmPath(), args, helmEnv);
  return { kubectl, helm, dispose: () => rmSync(dir, { recursive: true, force: true }), dir, env };
}
