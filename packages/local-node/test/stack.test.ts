import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { KubeClient, Resources } from '@kruise/runtime';
import { afterAll, describe, expect, it } from 'vitest';
import { eventually } from '../../../test/support/poll.ts';

const main = join(dirname(fileURLToPath(import.meta.url)), '../src/stack/main.ts');
const stateDir = mkdtempSync(join(tmpdir(), 'kruise-stack-'));
const running: ChildProcess[] = [];

/** Starts `pnpm start`'s program and resolves once it says it is ready, with the manager's pid. */
async function startStack(): Promise<{ stack: ChildProcess; managerPid: number; output: () => string }> {
  const stack = spawn(process.execPath, ['--conditions=source', main, `--state-dir=${stateDir}`], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.push(stack);
  let out = '';
  stack.stdout!.on('data', (c) => (out += c));
  stack.stderr!.on('data', (c) => (out += c));
  const managerPid = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`stack not ready in 60 s:\n${out}`)), 60_000);
    stack.stdout!.on('data', () => {
      const m = /kruise-manager running \(pid (\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    });
    stack.once('exit', (code) => reject(new Error(`stack exited with ${code}:\n${out}`)));
  });
  return { stack, managerPid, output: () => out };
}

const stop = async (stack: ChildProcess): Promise<number | null> => {
  if (stack.exitCode !== null) return stack.exitCode;
  const exited = new Promise<number | null>((r) => stack.once('exit', (code) => r(code)));
  stack.kill('SIGTERM');
  return exited;
};
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

afterAll(async () => {
  for (const p of running) await stop(p);
  rmSync(stateDir, { recursive: true, force: true });
});

describe('pnpm start (the local stack)', () => {
  it('serves the Kruise API with kruise-manager webhooks and controllers, then stops cleanly', async () => {
    const { stack, managerPid } = await startStack();
    const client = KubeClient.fromString(readFileSync(join(stateDir, 'kubeconfig'), 'utf8'));

    const created = await client.create(Resources.ImagePullJob, {
      metadata: { name: 'warm', namespace: 'default' },
      spec: { image: 'nginx:1.25' },
    });
    expect(created.spec).toMatchObject({
      completionPolicy: { type: 'Always' },
      pullPolicy: { timeoutSeconds: 600, backoffLimit: 3 },
    });
    expect(created.metadata?.finalizers).toEqual(['apps.kruise.io/deletion-protection']);

    const denied = await client
      .create(Resources.ImagePullJob, {
        metadata: { name: 'bad', namespace: 'default' },
        spec: { image: '' },
      })
      .catch((e) => e);
    expect(denied.message).toBe(
      'admission webhook "vimagepulljob.kb.io" denied the request: image can not be empty',
    );

    // No nodes in the local stack yet: the controller still finishes the job.
    const done = await eventually(async () => {
      const j = await client.get(Resources.ImagePullJob, 'default', 'warm');
      return j.status?.completionTime ? j : undefined;
    }, 20_000);
    expect(done?.status).toMatchObject({ desired: 0, message: 'job has completed' });

    expect(await stop(stack)).toBe(0);
    expect(alive(managerPid)).toBe(false);
  });

  it('starts again on the same state and keeps what was stored', async () => {
    const { stack } = await startStack();
    const client = KubeClient.fromString(readFileSync(join(stateDir, 'kubeconfig'), 'utf8'));
    const job = await client.get(Resources.ImagePullJob, 'default', 'warm');
    expect(job.status?.completionTime).toBeTruthy();
    const crds = await client.list(Resources.CustomResourceDefinition);
    expect(crds.items.map((c) => c.metadata?.name)).toContain('imagepulljobs.apps.kruise.io');
    expect(await stop(stack)).toBe(0);
  });
});
