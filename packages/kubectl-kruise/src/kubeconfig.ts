import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, dirname, isAbsolute, join, resolve } from 'node:path';
import type { ClusterAccess } from '@kruise/runtime/kube/kubeconfig';
import { parseKubeconfig } from '@kruise/runtime/kube/kubeconfig';
import { parse } from 'yaml';
import { PlainError } from './errors.ts';

/** The global connection flags kubectl accepts (`--kubeconfig`, `--context`, `-n`, ...). */
export interface ConnectionFlags {
  kubeconfig?: string;
  context?: string;
  cluster?: string;
  user?: string;
  server?: string;
  token?: string;
  namespace?: string;
}

/** Where to connect and which namespace commands default to. */
export interface Connection {
  access: ClusterAccess;
  /** `-n`, else the context's namespace, else `default`. */
  namespace: string;
  /** Whether the namespace came from `-n/--namespace`. */
  explicitNamespace: boolean;
}

type Named = { name: string; [k: string]: unknown };
interface MergedConfig {
  clusters: Named[];
  users: Named[];
  contexts: Named[];
  'current-context'?: string;
}

/** Fields holding file paths, which kubectl resolves against the kubeconfig file's directory. */
const PATH_FIELDS = {
  clusters: ['certificate-authority'],
  users: ['client-certificate', 'client-key', 'tokenFile'],
} as const;

/** The kubeconfig files kubectl reads: `--kubeconfig`, else `$KUBECONFIG`'s list, else `~/.kube/config`. */
export function kubeconfigFiles(flag: string | undefined, env: NodeJS.ProcessEnv): string[] {
  if (flag) {
    if (!existsSync(flag)) throw new Error(`stat ${flag}: no such file or directory`);
    return [flag];
  }
  if (env.KUBECONFIG) return env.KUBECONFIG.split(delimiter).filter((f) => f && existsSync(f));
  const home = join(env.HOME || homedir(), '.kube', 'config');
  return existsSync(home) ? [home] : [];
}

/**
 * Merges kubeconfig files with kubectl's rules: the first file to name a cluster, user or context
 * wins it, and the first file to set `current-context` wins it; relative file paths in a file are
 * resolved against that file's directory.
 */
export function mergeKubeconfigs(files: readonly string[]): MergedConfig {
  const merged: MergedConfig = { clusters: [], users: [], contexts: [] };
  for (const file of files) {
    const config = loadConfigFile(file);
    for (const section of ['clusters', 'users', 'contexts'] as const) {
      const entries = (config[section] ?? []) as Named[];
      for (const entry of entries) {
        if (!entry?.name || merged[section].some((e) => e.name === entry.name)) continue;
        merged[section].push(resolvePaths(section, entry, dirname(resolve(file))));
      }
    }
    const current = config['current-context'];
    if (!merged['current-context'] && typeof current === 'string' && current)
      merged['current-context'] = current;
  }
  return merged;
}

/** One kubeconfig file as an object; kubectl's `error loading config file` when it is not one. */
function loadConfigFile(file: string): Record<string, unknown> {
  let config: unknown;
  try {
    config = parse(readFileSync(file, 'utf8')) ?? {};
  } catch (err) {
    throw new Error(`error loading config file "${file}": ${(err as Error).message.split('\n')[0]}`);
  }
  if (typeof config !== 'object' || Array.isArray(config))
    throw new Error(`error loading config file "${file}": not a kubeconfig object`);
  for (const section of ['clusters', 'users', 'contexts'])
    if (
      (config as Record<string, unknown>)[section] != null &&
      !Array.isArray((config as Record<string, unknown>)[section])
    )
      throw new Error(`error loading config file "${file}": ${section} must be a list`);
  return config as Record<string, unknown>;
}

function resolvePaths(section: 'clusters' | 'users' | 'contexts', entry: Named, dir: string): Named {
  if (section === 'contexts') return entry;
  const key = section === 'clusters' ? 'cluster' : 'user';
  const body = { ...((entry[key] as Record<string, unknown>) ?? {}) };
  for (const field of PATH_FIELDS[section]) {
    const value = body[field];
    if (typeof value === 'string' && value && !isAbsolute(value)) body[field] = join(dir, value);
  }
  return { ...entry, [key]: body };
}

/**
 * Resolves the connection as kubectl does: the merged kubeconfig, the context chosen by `--context`
 * or `current-context`, overridden by `--cluster`, `--user`, `--server`, `--token` and `-n`. With no
 * configuration at all kubectl talks to http://localhost:8080, and so does this.
 */
export function resolveConnection(flags: ConnectionFlags, env: NodeJS.ProcessEnv = process.env): Connection {
  const config = mergeKubeconfigs(kubeconfigFiles(flags.kubeconfig, env));
  const contextName = flags.context || config['current-context'] || '';
  const found = config.contexts.find((c) => c.name === contextName);
  if (contextName && !found)
    throw new PlainError(
      `Error in configuration: context was not found for specified context: ${contextName}`,
    );
  const context = { ...((found?.context as Record<string, string>) ?? {}) };
  if (flags.cluster) context.cluster = flags.cluster;
  if (flags.user) context.user = flags.user;
  const cluster = config.clusters.find((c) => c.name === context.cluster);
  if (flags.cluster && !cluster) throw new Error(`no server found for cluster "${flags.cluster}"`);
  const user = config.users.find((u) => u.name === context.user);
  if (flags.user && !user) throw new Error(`auth info "${flags.user}" does not exist`);
  const clusterBody = { ...((cluster?.cluster as Record<string, unknown>) ?? {}) };
  if (flags.server) clusterBody.server = flags.server;
  if (!clusterBody.server) clusterBody.server = 'http://localhost:8080';
  const userBody = { ...((user?.user as Record<string, unknown>) ?? {}) };
  if (flags.token) userBody.token = flags.token;
  const single = {
    clusters: [{ name: 'c', cluster: clusterBody }],
    users: [{ name: 'u', user: userBody }],
    contexts: [{ name: 'x', context: { cluster: 'c', user: 'u' } }],
    'current-context': 'x',
  };
  const access = parseKubeconfig(JSON.stringify(single));
  return {
    access,
    namespace: flags.namespace || context.namespace || 'default',
    explicitNamespace: Boolean(flags.namespace),
  };
}
