import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { KruiseResources, type NodeImage } from '@kruise/api';

import { ControlPlane } from '@kruise/control-plane';
import { kubeTime } from '@kruise/kube-compat';
import { KubeClient, type KubeObject } from '@kruise/runtime';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { parse } from 'yaml';
import { until } from '../../../test/support/poll.ts';

const here = dirname(fileURLToPath(import.meta.url));
const main = join(here, '../src/main.ts');
const root = join(here, '../../..');
const registry = inject('registry');
let cp: ControlPlane;
let client: KubeClient;
let dir: string;

beforeAll(async () => {
  cp = await ControlPlane.start();
  client = KubeClient.fromString(cp.kubeconfig());
  for (const file of readdirSync(join(root, 'deploy/crds'))) {
    await client.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {
      body: parse(readFileSync(join(root, 'deploy/crds', file), 'utf8')),
    });
  }
  dir = mkdtempSync(join(tmpdir(), 'daemon-'));
  writeFileSync(join(dir, 'kubeconfig'), cp.kubeconfig());
});
afterAll(async () => {
  await cp.stop();
  rmSync(dir, { recursive: true, force: true });
});

function run(args: string[]) {
  const child = spawn(process.execPath, ['--conditions=source', main, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, NODE_NAME: '' },
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (c) => (out += c));
  child.stderr.on('data', (c) => (err += c));
  // 'close', not 'exit': what it printed last may still be in the pipes when it exits.
  const exited = new Promise<number | null>((r) => child.once('close', r));
  return { child, exited, out: () => out, err: () => err };
}

describe('kruise-daemon process', () => {
  it('refuses to start without a node name (exit 2) or a runtime (exit 1, naming the paths)', async () => {
    const noNode = run([`--kubeconfig=${join(dir, 'kubeconfig')}`]);
    expect(await noNode.exited).toBe(2);
    expect(noNode.err()).toContain('--node-name (or env NODE_NAME) is required');
    const noRuntime = run([
      '--node-name=n',
      `--kubeconfig=${join(dir, 'kubeconfig')}`,
      `--host-run-dir=${dir}`,
      '--addr=0',
    ]);
    expect(await noRuntime.exited).toBe(1);
    expect(noRuntime.err()).toContain(
      `not found container runtime sock: tried ${join(dir, 'containerd.sock')} (missing)`,
    );
  });

  it('serves /healthz and /metrics, pulls what its NodeImage asks, and stops cleanly on SIGTERM', async () => {
    const image = `${registry}/busybox`;
    const now = kubeTime();
    await client.create(KruiseResources.NodeImage, {
      metadata: { name: 'proc-node' },
      spec: {
        images: {
          [image]: {
            tags: [
              {
                tag: 'v1',
                version: 0,
                createdAt: now,
                imagePullPolicy: 'Always',
                pullPolicy: { timeoutSeconds: 30, backoffLimit: 1, ttlSecondsAfterFinished: 600 },
              },
            ],
          },
        },
      },
    });
    const p = run([
      '--node-name=proc-node',
      `--kubeconfig=${join(dir, 'kubeconfig')}`,
      `--runtime-endpoint=unix://${inject('criSocket')}`,
      '--addr=127.0.0.1:0',
      '--status-update-interval=100ms',
    ]);
    const started = await until(() => /"port":(\d+)/.exec(p.out())?.[1]);
    const health = await until(async () => {
      const r = await fetch(`http://127.0.0.1:${started}/healthz`);
      return r.status === 200 ? r : undefined;
    });
    expect(health.status).toBe(200);
    await until(
      async () =>
        (await client.get<NodeImage & KubeObject>(KruiseResources.NodeImage, undefined, 'proc-node')).status
          ?.succeeded === 1,
    );
    const metrics = await (await fetch(`http://127.0.0.1:${started}/metrics`)).text();
    expect(metrics).toContain('kruise_daemon_image_pulls_total{result="success"} 1');
    p.child.kill('SIGTERM');
    expect(await p.exited).toBe(0);
    const logs = p
      .out()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(logs.every((l) => typeof l.msg === 'string' && l.component === 'kruise-daemon')).toBe(true);
  });
});
