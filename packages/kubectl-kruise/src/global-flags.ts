import type { FlagSpec, FlagValues } from './flags.ts';
import type { ConnectionFlags } from './kubeconfig.ts';

/** The kubectl options every command accepts (`kubectl options`), those this plugin honours. */
export const GLOBAL_FLAGS: readonly FlagSpec[] = [
  { name: 'kubeconfig', type: 'string', usage: 'Path to the kubeconfig file to use for CLI requests.' },
  { name: 'context', type: 'string', usage: 'The name of the kubeconfig context to use' },
  { name: 'cluster', type: 'string', usage: 'The name of the kubeconfig cluster to use' },
  { name: 'user', type: 'string', usage: 'The name of the kubeconfig user to use' },
  {
    name: 'namespace',
    short: 'n',
    type: 'string',
    usage: 'If present, the namespace scope for this CLI request',
  },
  { name: 'server', short: 's', type: 'string', usage: 'The address and port of the Kubernetes API server' },
  { name: 'token', type: 'string', usage: 'Bearer token for authentication to the API server' },
  { name: 'help', short: 'h', type: 'bool', usage: 'help for this command' },
];

/** The connection part of parsed flags. */
export function connectionFlags(flags: FlagValues): ConnectionFlags {
  const pick = (name: string) =>
    typeof flags[name] === 'string' && flags[name] ? (flags[name] as string) : undefined;
  const result: ConnectionFlags = {};
  for (const key of ['kubeconfig', 'context', 'cluster', 'user', 'namespace', 'server', 'token'] as const) {
    const value = pick(key);
    if (value !== undefined) result[key] = value;
  }
  return result;
}
