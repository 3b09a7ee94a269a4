import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { parseFeatureGates } from '@kruise/api/feature-gates';
import { portArgument } from '@kruise/runtime/cli/command-line';
import { featureGatesFlag } from '@kruise/runtime/cli/feature-gates';
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
  help: boolean;
}

export const USAGE = `usage: pnpm start [-- options]
  --no-examples          do not apply examples/
  --state-dir DIR        kubeconfig and API server data (default .kruise/)
  --node-name NAME       the local node (default kruise-local)
  --registry-port PORT   the local registry on 127.0.0.1 (default 5000)
  --runtime-dir DIR      containerd and registry state, kept short for unix sockets (default /tmp/kruise-stack)
  --nodes N              local nodes (default 1): NAME, NAME-2 … in zones zone-a, zone-b …, each with
                         kruise-daemon and a containerd of its own (DIR-n2 …)
  --feature-gates G=B,…  Kruise's feature gates for kruise-manager and kruise-daemon
                         (e.g. PreDownloadImageForInPlaceUpdate=true)`;

/** Bad command-line input, with the message to print (the program exits 2). */
export class UsageError extends Error {}

const parse = (args: string[]) =>
  parseArgs({
    args,
    options: {
      'state-dir': { type: 'string', default: join(repoRoot, '.kruise') },
      'no-examples': { type: 'boolean', default: false },
      'node-name': { type: 'string', default: 'kruise-local' },
      'registry-port': { type: 'string', default: '5000' },
      'runtime-dir': { type: 'string', default: '/tmp/kruise-stack' },
      nodes: { type: 'string', default: '1' },
      'feature-gates': { type: 'string', default: '' },
      help: { type: 'boolean', default: false },
    },
  });

/** Parses `pnpm start`'s arguments; throws a UsageError naming the problem. */
export function parseStackFlags(argv: string[]): StackFlags {
  let values: ReturnType<typeof parse>['values'];
  try {
    values = parse(argv.filter((a) => a !== '--')).values;
  } catch (err) {
    const e = err as Error & { code?: string };
    const option = /'([^']+)'/.exec(e.message)?.[1];
    throw new UsageError(
      e.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && option ? `unknown option '${option}'` : e.message,
    );
  }
  let registryPort: number;
  try {
    registryPort = portArgument('--registry-port')(values['registry-port']);
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const nodes = Number(values.nodes);
  if (!/^\d+$/.test(values.nodes) || nodes < 1 || nodes > 26)
    throw new UsageError(`--nodes: must be a whole number from 1 to 26, not "${values.nodes}"`);
  const featureGates = values['feature-gates'];
  try {
    featureGatesFlag(featureGates, parseFeatureGates);
  } catch (err) {
    // the shared parser's message is the programs' own line; main.ts prints the 'error: ' prefix
    throw new UsageError((err as Error).message.replace(/^error: /, ''));
  }
  return {
    nodes,
    featureGates,
    stateDir: values['state-dir'],
    noExamples: values['no-examples'],
    nodeName: values['node-name'],
    registryPort,
    runtimeDir: values['runtime-dir'],
    help: values.help,
  };
}
