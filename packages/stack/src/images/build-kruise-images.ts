import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../repo-root.ts';
import { imageSourceKey } from './image-source-key.ts';
import { NODE_BINARY, nodeBaseImages } from './node-base.ts';
import { runCommand } from './run-command.ts';

/** Where built images and the base's root filesystem are kept between runs, unless KRUISE_IMAGE_CACHE says otherwise. */
export const DEFAULT_IMAGE_CACHE = '/var/cache/kruise-images';
/** How many builds of each image the cache keeps (the newest; older keys are removed). */
const KEPT_BUILDS = 2;

/** The project's two images, each with its Dockerfile and repository name. */
export const KRUISE_IMAGES = [
  { name: 'kruise-manager', dockerfile: 'Dockerfile.manager', pkg: 'packages/manager/package.json' },
  { name: 'kruise-daemon', dockerfile: 'Dockerfile.daemon', pkg: 'packages/daemon/package.json' },
] as const;

/** Which image: kruise-manager or kruise-daemon. */
export type KruiseImageName = (typeof KRUISE_IMAGES)[number]['name'];

/** What {@link buildKruiseImages} needs: a Docker Engine to build in and the registry to push to. */
export interface BuildKruiseImagesOptions {
  /** The Docker Engine's unix socket (the test stack's: inject('dockerSocket')). */
  dockerSocket: string;
  /** The registry's `host:port`, plain HTTP on loopback (the test stack's: inject('registry')). */
  registry: string;
  /** The cache directory; KRUISE_IMAGE_CACHE or /var/cache/kruise-images by default. */
  cacheDir?: string;
  /** Each line the steps print (debootstrap, docker build, push), e.g. to a log. */
  onLine?: (line: string) => void;
}

/** One image as pushed: its reference in the registry, its image ID and whether this call built it. */
export interface PushedImage {
  /** `<registry>/kruise-nodejs/<name>:<version>-<key>`, the key a digest of what the image is built from. */
  reference: string;
  /** The image's config digest (`sha256:…`), the same in Docker and in containerd. */
  id: string;
  /** False when the cache held this build and only the push happened. */
  built: boolean;
}

/** The docker CLI: Debian's docker.io (its version matches the Docker Engine the stack starts). */
const DOCKER = existsSync('/usr/bin/docker') ? '/usr/bin/docker' : 'docker';

function versionOf(pkg: string): string {
  return (JSON.parse(readFileSync(join(repoRoot, pkg), 'utf8')) as { version: string }).version;
}

/** Removes all but the newest {@link KEPT_BUILDS} cached builds of an image. */
function pruneCache(dir: string, name: string): void {
  const builds = readdirSync(dir)
    .filter((f) => f.startsWith(`${name}-`) && !f.endsWith('.tmp'))
    .map((f) => ({ path: join(dir, f), mtime: statSync(join(dir, f)).mtimeMs }))
    .sort((a, b) => b.mtime - a.mtime);
  for (const old of builds.slice(KEPT_BUILDS)) rmSync(old.path, { recursive: true, force: true });
}

/** The image ID of a cached build: its config's digest, which Docker, the registry and containerd all report. */
function cachedImageId(build: string): string {
  const manifest = JSON.parse(readFileSync(join(build, 'manifest.json'), 'utf8')) as {
    config: { digest: string };
  };
  return manifest.config.digest;
}

/** Copies a cached build (skopeo's `dir:` layout, layers compressed) to a plain-HTTP registry. */
function pushCached(build: string, reference: string): Promise<unknown> {
  return runCommand('skopeo', [
    'copy',
    '--quiet',
    '--dest-tls-verify=false',
    `dir:${build}`,
    `docker://${reference}`,
  ]);
}

/**
 * Builds kruise-manager's and kruise-daemon's images from their Dockerfiles on the offline base
 * (ADR 0061) and pushes them to `registry`, where containerd nodes pull them. Idempotent: a build
 * is keyed by a digest of the Dockerfile, lockfile, sources, base recipe and Node.js binary, and
 * kept in the cache (skopeo's `dir:` layout), so an unchanged tree is only pushed again (seconds),
 * never rebuilt. The build stage reaches the npm registry through the host's network
 * (`--network host`: the stack's Docker Engine has no bridge network).
 */
export async function buildKruiseImages(
  options: BuildKruiseImagesOptions,
): Promise<Record<KruiseImageName, PushedImage>> {
  const cacheDir = options.cacheDir ?? process.env['KRUISE_IMAGE_CACHE'] ?? DEFAULT_IMAGE_CACHE;
  const builds = join(cacheDir, 'images');
  mkdirSync(builds, { recursive: true });
  if (!existsSync(NODE_BINARY)) throw new Error(`${NODE_BINARY} is missing: run pnpm install first`);
  const docker = (args: string[]) =>
    runCommand(DOCKER, ['-H', `unix://${options.dockerSocket}`, ...args], {
      ...(options.onLine ? { onLine: options.onLine } : {}),
    });
  const result = {} as Record<KruiseImageName, PushedImage>;
  let base: Awaited<ReturnType<typeof nodeBaseImages>> | undefined;
  for (const image of KRUISE_IMAGES) {
    const key = imageSourceKey(repoRoot, image.dockerfile, [NODE_BINARY]).slice(0, 16);
    const reference = `${options.registry}/kruise-nodejs/${image.name}:${versionOf(image.pkg)}-${key}`;
    const build = join(builds, `${image.name}-${key}`);
    const built = !existsSync(join(build, 'manifest.json'));
    const started = Date.now();
    if (built) {
      base ??= await nodeBaseImages(options.dockerSocket, cacheDir, options.onLine);
      await docker([
        'build',
        '--network',
        'host',
        '--build-arg',
        `BUILD_IMAGE=${base.build}`,
        '--build-arg',
        `BASE_IMAGE=${base.runtime}`,
        '-f',
        join(repoRoot, image.dockerfile),
        '-t',
        reference,
        repoRoot,
      ]);
      // into the cache as skopeo's `dir:` layout: the image's own config (its ID kept) and gzipped layers,
      // so a later push only uploads them
      const tmp = `${build}.${process.pid}.tmp`;
      rmSync(tmp, { recursive: true, force: true });
      await runCommand('skopeo', [
        'copy',
        '--quiet',
        '--dest-compress',
        '--src-daemon-host',
        `unix://${options.dockerSocket}`,
        `docker-daemon:${reference}`,
        `dir:${tmp}`,
      ]);
      // (a run in another worktree may have cached the same build meanwhile: keep the first)
      if (existsSync(join(build, 'manifest.json'))) rmSync(tmp, { recursive: true, force: true });
      else {
        rmSync(build, { recursive: true, force: true });
        renameSync(tmp, build);
      }
      pruneCache(builds, image.name);
      options.onLine?.(`${image.name}: built ${key} in ${Date.now() - started} ms`);
    } else options.onLine?.(`${image.name}: cached build ${key}`);
    await pushCached(build, reference);
    options.onLine?.(`${image.name}: pushed ${reference} (${Date.now() - started} ms in all)`);
    result[image.name] = { reference, id: cachedImageId(build), built };
  }
  return result;
}
