import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CriClient } from '@kruise/cri/client';
import {
  buildKruiseImages,
  type KruiseImageName,
  type PushedImage,
} from '@kruise/stack/images/build-kruise-images';
import { runCommand } from '@kruise/stack/images/run-command';
import { repoRoot } from '@kruise/stack/repo-root';
import { afterAll, beforeAll, describe, expect, inject, it, onTestFailed } from 'vitest';

/**
 * kruise-manager's and kruise-daemon's images as the project builds them on this machine: from the
 * Dockerfiles, on the offline Debian + Node.js base (ADR 0061), into the test stack's Docker Engine,
 * then pushed to its registry, where containerd pulls them. The first build on a machine takes
 * minutes (debootstrap, `pnpm install` in the build stage); after it, an unchanged tree is only
 * pushed from the cache.
 */
const dockerSocket = inject('dockerSocket');
const registry = inject('registry');
const DOCKER = '/usr/bin/docker';
const log: string[] = [];
let images: Record<KruiseImageName, PushedImage>;
let firstCallMs = 0;
let cri: CriClient;

/** `docker run --rm` of an image with no network; its exit code and output, never a rejection. */
async function dockerRun(args: string[]): Promise<{ code: number | null; output: string }> {
  return runCommand(DOCKER, [
    '-H',
    `unix://${dockerSocket}`,
    'run',
    '--rm',
    '--network',
    'none',
    ...args,
  ]).catch((err: Error) => {
    const code = /exit code (\d+)/.exec(err.message)?.[1];
    return { code: code ? Number(code) : null, output: err.message };
  });
}

function docker(args: string[]) {
  return runCommand(DOCKER, ['-H', `unix://${dockerSocket}`, ...args]);
}

beforeAll(async () => {
  const started = Date.now();
  images = await buildKruiseImages({
    dockerSocket,
    registry,
    onLine: (line) => log.push(`${new Date().toISOString().slice(11, 23)} ${line}`),
  });
  firstCallMs = Date.now() - started;
  cri = new CriClient(inject('criSocket'));
  // what runs below comes from the registry, not from a build left in the engine
  for (const { reference, built } of Object.values(images)) {
    if (built) await docker(['rmi', reference]);
    await docker(['pull', '-q', reference]);
  }
}, 1_200_000);
afterAll(() => cri?.close());

describe('the kruise images built here', () => {
  it('are in the local registry under references keyed by their sources, each with its own image ID', async () => {
    onTestFailed(() => console.log(log.slice(-60).join('\n')));
    console.log(log.filter((l) => /node-base|kruise-(manager|daemon):/.test(l)).join('\n'));
    console.log(
      `buildKruiseImages: ${firstCallMs} ms (${Object.values(images).every((i) => i.built) ? 'built' : 'from the cache'})`,
    );
    for (const name of ['kruise-manager', 'kruise-daemon'] as const) {
      const { reference, id } = images[name];
      expect(reference).toMatch(new RegExp(`^${registry}/kruise-nodejs/${name}:0\\.1\\.0-[0-9a-f]{16}$`));
      const [repo, tag] = reference.slice(registry.length + 1).split(':') as [string, string];
      const res = await fetch(`http://${registry}/v2/${repo}/manifests/${tag}`, {
        headers: { accept: 'application/vnd.docker.distribution.manifest.v2+json' },
      });
      expect(res.status).toBe(200);
      const manifest = (await res.json()) as { config: { digest: string }; layers: unknown[] };
      expect(manifest.config.digest).toBe(id);
      expect(manifest.layers.length).toBeGreaterThanOrEqual(3); // Debian, node, the bundle
    }
    expect(images['kruise-manager'].id).not.toBe(images['kruise-daemon'].id);
  });

  it('are pulled by containerd through CRI; the manager runs as 65534, the daemon as root', async () => {
    for (const name of ['kruise-manager', 'kruise-daemon'] as const) {
      const { reference, id } = images[name];
      const { imageRef } = await cri.pullImage(reference, {}, { timeoutMs: 180_000 });
      expect(imageRef).toBe(id);
      const status = await cri.imageStatus(reference);
      expect(status.image?.repoTags).toContain(reference);
      const size = Number(status.image?.size);
      expect(size).toBeGreaterThan(50_000_000); // Debian and node are in the image…
      expect(size).toBeLessThan(400_000_000); // …and not the build stage (~1 GB with its node_modules)
      if (name === 'kruise-manager') expect(status.image?.uid?.value).toBe('65534');
      else expect(status.image?.uid?.value ?? '0').toBe('0');
    }
  });

  it("kruise-manager's entry answers --help, and without a cluster says so and exits 1, as 65534", async () => {
    const ref = images['kruise-manager'].reference;
    const help = await dockerRun([ref, '--help']);
    expect(help.code).toBe(0);
    expect(help.output).toContain("OpenKruise's kruise-manager");
    expect(help.output).toContain('--kubeconfig');
    const noCluster = await dockerRun([ref]);
    expect(noCluster.code).toBe(1);
    expect(noCluster.output).toContain('invalid configuration: no configuration has been provided');
    expect(noCluster.output).toContain('KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are not set');
    const who = await dockerRun(['--entrypoint', 'id', ref]);
    expect(who.output.trim()).toBe('uid=65534(nobody) gid=65534(nogroup) groups=65534(nogroup)');
  });

  it("kruise-daemon's entry answers --help with its flags from the Dockerfile", async () => {
    const help = await dockerRun([images['kruise-daemon'].reference, '--help']);
    expect(help.code).toBe(0);
    expect(help.output).toContain("OpenKruise's kruise-daemon");
  });

  it("hold the Dockerfiles' bundle on the offline base: the repo's node, no npm, no apt lists or docs", async () => {
    const nodeVersion = (
      JSON.parse(readFileSync(join(repoRoot, 'node_modules/node/package.json'), 'utf8')) as {
        version: string;
      }
    ).version;
    const script = [
      'node --version',
      'node -p "require(\'/app/package.json\').name"',
      'test -f /app/dist/main.js && echo main',
      'test -d /app/node_modules/@kruise/runtime && echo runtime-dep',
      'test -d /app/src || echo no-sources',
      'command -v npm || echo no-npm',
      'find /var/lib/apt/lists /usr/share/doc /usr/share/man -mindepth 1 | wc -l',
      '. /etc/os-release && echo $VERSION_CODENAME',
      'test -d /app/proto && echo proto || echo no-proto',
    ].join('; ');
    const expected = (pkg: string, proto: string) => [
      `v${nodeVersion}`,
      pkg,
      'main',
      'runtime-dep',
      'no-sources',
      'no-npm',
      '0',
      'bookworm',
      proto,
    ];
    const manager = await dockerRun(['--entrypoint', 'sh', images['kruise-manager'].reference, '-c', script]);
    expect(manager.output.trim().split('\n')).toEqual(expected('@kruise/manager', 'no-proto'));
    const daemon = await dockerRun(['--entrypoint', 'sh', images['kruise-daemon'].reference, '-c', script]);
    expect(daemon.output.trim().split('\n')).toEqual(expected('@kruise/daemon', 'proto'));
  });

  it('are not rebuilt for an unchanged tree: a second call only pushes the cached builds', async () => {
    const started = Date.now();
    const again = await buildKruiseImages({ dockerSocket, registry });
    const ms = Date.now() - started;
    for (const name of ['kruise-manager', 'kruise-daemon'] as const) {
      expect(again[name]).toEqual({ ...images[name], built: false });
    }
    expect(ms).toBeLessThan(30_000);
  });
});
