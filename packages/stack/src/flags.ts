import { join } from 'node:path';
import { parseFeatureGates } from '@kruise/api/feature-gates';
import { parseCommandLine, portArgument, programCommand } from '@kruise/runtime/cli/command-line';
import { featureGatesFlag } from '@kruise/runtime/cli/feature-gates';
import { InvalidArgumentError } from 'commander';
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
examples/ with their progress. Ctrl-C stops everything it started.`;

const nodeCount = (v: string) => {
  if (!/^\d+$/.test(v) || Number(v) < 1 || Number(v) > 26)
    throw new InvalidArgumentError('must be a whole number from 1 to 26');
  return Number(v);
};

/**
 * Parses `pnpm start`'s arguments as the programs parse theirs (same help layout, same one-line
 * errors): `--help` prints the help and throws a CommanderError with exit code 0, bad input throws
 * one with exit code 2.
 */
export function parseStackFlags(argv: string[]): StackFlags {
  const cmd = programCommand('pnpm start', DESCRIPTION)
    .usage('-- [options]')
    .option('--no-examples', 'do not apply examples/')
    .option('--state-dir <dir>', 'kubeconfig, logs and API server data', join(repoRoot, '.kruise'))
    .option('--node-name <name>', 'the (first) local node', 'kruise-local')
    .option('--registry-port <port>', 'the local registry on 127.0.0.1', portArgument, 5000)
    .option(
      '--runtime-dir <dir>',
      'containerd and registry state, kept short for unix sockets',
      '/tmp/kruise-stack',
    )
    .option(
      '--nodes <n>',
      'local nodes: NAME, NAME-2 … in zones zone-a, zone-b …, each with kruise-daemon and a containerd of its own (DIR-n2 …)',
      nodeCount,
      1,
    )
    .option(
      '--feature-gates <gates>',
      "Kruise's feature gates for kruise-manager and kruise-daemon (e.g. PreDownloadImageForInPlaceUpdate=true)",
      '',
    );
  parseCommandLine(
    cmd,
    argv.filter((a) => a !== '--'),
  );
  const o = cmd.opts();
  featureGatesFlag(o.featureGates, parseFeatureGates);
  return {
    stateDir: o.stateDir,
    noExamples: !o.examples,
    nodeName: o.nodeName,
    registryPort: o.registryPort,
    runtimeDir: o.runtimeDir,
    nodes: o.nodes,
    featureGates: o.featureGates,
  };
}
