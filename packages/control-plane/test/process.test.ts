import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { afterAll, describe, expect, it } from 'vitest';
import { ControlPlane } from '../src/index.ts';
import { expectStatus, kubeConfigFor } from './helpers.ts';

const main = join(dirname(fileURLToPath(import.meta.url)), '../src/main.ts');
const dir = mkdtempSync(join(tmpdir(), 'cp-process-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs the control-plane CLI; resolves once it prints a line with `ready` (or exits). */
function run(args: string[]) {
  const child = spawn(process.execPath, ['--conditions=source', main, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (c) => (out += c));
  child.stderr.on('data', (c) => (err += c));
  // 'close', not 'exit': what it printed last may still be in the pipes when it exits.
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  const ready = new Promise<void>((resolve, reject) => {
    child.stdout.on('data', () => out.includes('ready') && resolve());
    void exited.then((code) => reject(new Error(`exited ${code}: ${err}`)));
  });
  ready.catch(() => undefined);
  return { child, ready, exited, output: () => ({ out, err }) };
}

describe('control-plane command', () => {
  it('serves, writes a kubeconfig and exits cleanly on SIGTERM', async () => {
    const kubeconfig = join(dir, 'kc');
    const p = run(['--kubeconfig', kubeconfig]);
    await p.ready;
    expect(p.output().out).toMatch(/ready at https:\/\/127\.0\.0\.1:\d+/);
    const kc = new KubeConfig();
    kc.loadFromString(readFileSync(kubeconfig, 'utf8'));
    const names = (await kc.makeApiClient(CoreV1Api).listNamespace()).items.map((n) => n.metadata?.name);
    expect(names).toEqual(['default', 'kube-node-lease', 'kube-public', 'kube-system']);
    p.child.kill('SIGTERM');
    expect(await p.exited).toBe(0);
  });

  it('refuses bad flags with exit code 2 and a clear message', async () => {
    const missing = run([]);
    expect(await missing.exited).toBe(2);
    expect(missing.output().err).toContain('--kubeconfig FILE is required');
    const port = run(['--kubeconfig', join(dir, 'x'), '--port', 'abc']);
    expect(await port.exited).toBe(2);
    expect(port.output().err).toContain('--port must be a port number, got "abc"');
    const grace = run(['--kubeconfig', join(dir, 'x'), '--node-monitor-grace-period', '40']);
    expect(await grace.exited).toBe(2);
    expect(grace.output().err).toContain(
      '--node-monitor-grace-period must be a positive duration (e.g. 40s), got "40"',
    );
    const unknown = run(['--bogus']);
    expect(await unknown.exited).toBe(2);
    expect(unknown.output().err).toContain("Unknown option '--bogus'");
  });
});

describe('data dir', () => {
  it('keeps objects and resourceVersions across a restart, and deletions too', async () => {
    const dataDir = join(dir, 'data');
    const first = await ControlPlane.start({ dataDir });
    const core = kubeConfigFor(first).makeApiClient(CoreV1Api);
    await core.createNamespacedConfigMap({
      namespace: 'default',
      body: { metadata: { name: 'kept' }, data: { a: '1' } },
    });
    await core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'gone' } } });
    await core.deleteNamespacedConfigMap({ name: 'gone', namespace: 'default' });
    const rv = first.store.currentRV;
    await first.stop();
    const second = await ControlPlane.start({ dataDir });
    try {
      const core2 = kubeConfigFor(second).makeApiClient(CoreV1Api);
      expect((await core2.readNamespacedConfigMap({ name: 'kept', namespace: 'default' })).data).toEqual({
        a: '1',
      });
      expect(
        (await expectStatus(() => core2.readNamespacedConfigMap({ name: 'gone', namespace: 'default' })))
          .code,
      ).toBe(404);
      const created = await core2.createNamespacedConfigMap({
        namespace: 'default',
        body: { metadata: { name: 'later' } },
      });
      expect(Number(created.metadata?.resourceVersion)).toBeGreaterThan(rv);
    } finally {
      await second.stop();
    }
  });
});
