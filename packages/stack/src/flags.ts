import { join } from 'node:path';
import { parseFeatureGates } from '@kruise/api/feature-gates';
import { featureGatesValue } from '@kruise/runtime/cli/feature-gates';
import { FlagSet } from '@kruise/runtime/cli/flag-set';
import { boolValue, portValue, stringValue, wholeNumberValue } from '@kruise/runtime/cli/flag-values';
import { repoRoot } from './repo-root.ts';

/** What `pnpm start` is started with. */
export interface StackFlags {
  stateDir: string;
  noExamples: boolean;
  nodeName: string;
  registryPort: number;
  runtimeDir: string;
  /** Local nodes, 1 to 26. */
  nodes: number;
  /** `--feature-gates` as given (checked), for kruise-manager and every kruise-daemon; '' for the defaults. */
  featureGates: string;
}

const DESCRIPTION = `The whole system on this machine: a local registry with sample images and
containerd (installed from Debian when missing; needs root), the embedded
control plane, kruise-manager, local nodes each with kruise-daemon, and
examples/ with their progress. Ctrl-C stops everything it started.
Flags go after \`--\`: pnpm start -- --nodes=2`;

/**
 * Parses `pnpm start`'s arguments as the programs parse theirs (same help layout, same one-line
 * errors; the `--` pnpm passes on is left out): throws a UsageError with exit code 0 and the help
 * for `--help`, one with exit code 2 for bad input.
 */
export function parseStackFlags(argv: string[]): StackFlags {
  const o = new FlagSet('pnpm start', DESCRIPTION)
    .flag('no-examples', boolValue, false, 'do not apply examples/')
    .flag('state-dir', stringValue, join(repoRoot, '.kruise'), 'kubeconfig, logs and API server data')
    .flag('node-name', stringValue, 'kruise-local', 'the (first) local node')
    .flag('registry-port', portValue, 5000, 'the local registry on 127.0.0.1')
    .flag(
      'runtime-dir',
      stringValue,
      '/tmp/kruise-stack',
      'containerd and registry state, kept short for unix sockets',
    )
    .flag(
      'nodes',
      wholeNumberValue(1, 26, 'must be a whole number from 1 to 26'),
      1,
      'local nodes: NAME, NAME-2 … in zones zone-a, zone-b …, each with kruise-daemon and a containerd of its own (DIR-n2 …)',
    )
    .flag(
      'feature-gates',
      featureGatesValue(parseFeatureGates),
      '',
      "Kruise's feature gates for kruise-manager and kruise-daemon (e.g. PreDownloadImageForInPlaceUpdate=true)",
    )
    .parse(argv.filter((a) => a !== '--'));
  return {
    stateDir: o['state-dir'],
    noExamples: o['no-examples'],
    nodeName: o['node-name'],
    registryPort: o['registry-port'],
    runtimeDir: o['runtime-dir'],
    nodes: o.nodes,
    featureGates: o['feature-gates'],
  };
}
