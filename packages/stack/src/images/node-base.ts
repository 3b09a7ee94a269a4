import { join } from 'node:path';
import { repoRoot } from '../repo-root.ts';
import { runCommand } from './run-command.ts';

/** The recipe of the offline base images (Debian minbase + Node.js), beside this package's sources. */
export const NODE_BASE_SCRIPT = join(repoRoot, 'packages/stack/images/node-base.sh');
/** The Dockerfile node-base.sh builds the base images with. */
export const NODE_BASE_DOCKERFILE = join(repoRoot, 'packages/stack/images/node-base.Dockerfile');
/** The Node.js binary of the npm `node` package the repository's root installs (the images' node). */
export const NODE_BINARY = join(repoRoot, 'node_modules/node/bin/node');

/** The two base images of kruise-manager's and kruise-daemon's Dockerfiles, by their local names. */
export interface NodeBaseImages {
  /** The runtime stage's base (BASE_IMAGE): Debian 12 minbase and node. */
  runtime: string;
  /** The build stage's base (BUILD_IMAGE): the runtime plus npm and the build machine's CAs. */
  build: string;
}

/**
 * Makes the base images in the Docker Engine on `dockerSocket` with node-base.sh (the Debian root
 * filesystem cached in `cacheDir`, built by debootstrap the first time on a machine).
 */
export async function nodeBaseImages(
  dockerSocket: string,
  cacheDir: string,
  onLine?: (line: string) => void,
): Promise<NodeBaseImages> {
  const { output } = await runCommand('bash', [NODE_BASE_SCRIPT, NODE_BINARY, dockerSocket], {
    env: { ...process.env, KRUISE_IMAGE_CACHE: cacheDir },
    ...(onLine ? { onLine } : {}),
  });
  const runtime = /^runtime=(\S+)$/m.exec(output)?.[1];
  const build = /^build=(\S+)$/m.exec(output)?.[1];
  if (!runtime || !build) throw new Error(`node-base.sh named no images:\n${output}`);
  return { runtime, build };
}
