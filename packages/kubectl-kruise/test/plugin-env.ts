import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ControlPlane } from '@kruise/control-plane';
import { afterAll, beforeAll, expect } from 'vitest';
import { kubectlPath } from '../../../test/support/kube-tools.ts';
import { type KubectlResult, runBinary } from '../../control-plane/test/kubectl-run.ts';
import { type CloneSetEnv, startCloneSetEnv } from '../../manager/test/cloneset/harness.ts';

/** The plugin's launcher, as the package's `bin` names it. */
export const PLUGIN_BIN = join(dirname(fileURLToPath(import.meta.url)), '..', 'bin', 'kubectl-kruise');

/** Runs `kubectl kruise ...` as a user would: the real kubectl, the plugin found on PATH. */
export interface PluginRunner {
  /** `kubectl kruise <args>` with the environment's kubeconfig (plus `env` overrides). */
  kruise(args: string[], env?: NodeJS.ProcessEnv): Promise<KubectlResult>;
  /** Starts `kubectl kruise <args>` and gives its output so far while it runs. */
  start(args: string[]): RunningPlugin;
  /** Plain `kubectl <args>` in the same environment. */
  kubectl(args: string[], env?: NodeJS.ProcessEnv): Promise<KubectlResult>;
  /** Scratch directory (HOME of the runs; holds `kubeconfig`). */
  dir: string;
  /** The admin kubeconfig's path. */
  kubeconfig: string;
  /** Writes a file in the scratch directory; returns its path. */
  write(name: string, text: string): string;
  dispose(): void;
}

/** A `kubectl kruise` run in progress. */
export interface RunningPlugin {
  /** Standard output so far. */
  out(): string;
  /** Resolves when it exits. */
  done: Promise<KubectlResult>;
}

/**
 * A scratch HOME with the control plane's admin kubeconfig, and a directory on PATH holding a
 * `kubectl-kruise` link to the package's launcher, which is how kubectl discovers plugins.
 */
export function pluginRunner(cp: ControlPlane): PluginRunner {
  const dir = mkdtempSync(join(tmpdir(), 'kubectl-kruise-'));
  const bin = join(dir, 'bin');
  mkdirSync(bin);
  symlinkSync(PLUGIN_BIN, join(bin, 'kubectl-kruise'));
  const kubeconfig = join(dir, 'kubeconfig');
  cp.writeKubeconfig(kubeconfig);
  const base: NodeJS.ProcessEnv = {
    PATH: `${bin}${delimiter}${process.env.PATH ?? '/usr/bin:/bin'}`,
    HOME: dir,
    KUBECONFIG: kubeconfig,
  };
  const kubectl = (args: string[], env: NodeJS.ProcessEnv = {}) =>
    runBinary(kubectlPath(), args, { ...base, ...env });
  const start = (args: string[]): RunningPlugin => {
    let out = '';
    let err = '';
    const child = spawn(kubectlPath(), ['kruise', ...args], { env: base, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
    });
    child.stderr.on('data', (d: Buffer) => {
      err += d.toString();
    });
    const done = new Promise<KubectlResult>((resolve) =>
      child.on('close', (code) => resolve({ code: code ?? 1, out, err })),
    );
    return { out: () => out, done };
  };
  return {
    kruise: (args, env) => kubectl(['kruise', ...args], env),
    start,
    kubectl,
    dir,
    kubeconfig,
    write: (name, text) => {
      const path = join(dir, name);
      writeFileSync(path, text);
      return path;
    },
    dispose: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** Runs `kubectl kruise <args>`, expects success (exit 0, nothing on standard error); gives its output. */
export async function expectSuccess(plugin: PluginRunner, args: string[]): Promise<string> {
  const r = await plugin.kruise(args);
  expect({ code: r.code, err: r.err }).toEqual({ code: 0, err: '' });
  return r.out;
}

/**
 * Runs each command line (at once) and expects kubectl's failure: exit code 1, nothing on standard
 * output, exactly `err` on standard error.
 */
export async function expectFailures(plugin: PluginRunner, cases: [string[], string][]): Promise<void> {
  const results = await Promise.all(cases.map(([args]) => plugin.kruise(args)));
  expect(results.map((r, i) => ({ args: cases[i]![0], code: r.code, out: r.out, err: r.err }))).toEqual(
    cases.map(([args, err]) => ({ args, code: 1, out: '', err })),
  );
}

/**
 * A test file's CloneSet environment (control plane and kruise-manager) and plugin runner on it:
 * started before the file's tests, then `setup` (the file's objects); the runner's directory and
 * the environment go after them. The two objects are filled in when the environment starts.
 */
export function usePluginEnv(
  setup: (env: CloneSetEnv, plugin: PluginRunner) => Promise<unknown> | undefined = () => undefined,
): { env: CloneSetEnv; plugin: PluginRunner } {
  const env = {} as CloneSetEnv;
  const plugin = {} as PluginRunner;
  beforeAll(async () => {
    Object.assign(env, await startCloneSetEnv());
    Object.assign(plugin, pluginRunner(env.cp));
    await setup(env, plugin);
  });
  afterAll(async () => {
    plugin.dispose?.();
    await env.stop?.();
  });
  return { env, plugin };
}
