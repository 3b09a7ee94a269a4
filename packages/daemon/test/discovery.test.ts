import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { discoverRuntime } from '../src/cri/discovery.ts';

const dir = mkdtempSync(join(tmpdir(), 'hostvarrun-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('runtime discovery', () => {
  it('finds containerd at an upstream candidate path under the host run dir', async () => {
    const host = join(dir, 'a');
    mkdirSync(join(host, 'containerd'), { recursive: true });
    writeFileSync(join(host, 'containerd.sock'), 'not a socket');
    symlinkSync(inject('criSocket'), join(host, 'containerd', 'containerd.sock'));
    const found = await discoverRuntime({ hostRunDir: host, timeoutMs: 2000 });
    expect(found.runtimeName).toBe('containerd');
    expect(found.endpoint).toBe(`unix://${join(host, 'containerd', 'containerd.sock')}`);
    found.client.close();
  });

  it('uses an explicit endpoint', async () => {
    const found = await discoverRuntime({ endpoint: `unix://${inject('criSocket')}` });
    expect(found.runtimeVersion).toMatch(/^1\./);
    found.client.close();
  });

  it('names every path it tried when nothing answers', async () => {
    const empty = join(dir, 'empty');
    mkdirSync(empty);
    const err = await discoverRuntime({ hostRunDir: empty, timeoutMs: 500 }).catch((e) => e);
    expect(err.message).toMatch(/^not found container runtime sock: tried /);
    for (const s of [
      'containerd.sock',
      'containerd/containerd.sock',
      'crio.sock',
      'crio/crio.sock',
      'cri-dockerd.sock',
      'cri-dockerd/cri-dockerd.sock',
    ]) {
      expect(err.message).toContain(`${join(empty, s)} (missing)`);
    }
  });
});
