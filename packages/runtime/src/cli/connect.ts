import { readFileSync } from 'node:fs';
import { KubeClient } from '../kube/client.ts';
import { KubeApiError } from '../kube/errors.ts';
import type { Logger } from '../log/logger.ts';

/** Why a program cannot start, in one line as kubectl says it; its `main` prints it and exits 1. */
export class StartupError extends Error {
  override name = 'StartupError';
}

/** Go's words for the file errors a kubeconfig read can meet (`open …: permission denied`). */
function fileErrorText(path: string, err: NodeJS.ErrnoException): string {
  if (err.code === 'EACCES') return `open ${path}: permission denied`;
  if (err.code === 'EISDIR') return `read ${path}: is a directory`;
  // Node says `EMFILE: too many open files, open 'F'`; Go says `open F: too many open files`.
  const description = /^[A-Z]+: (.*?)(, \w+ '.*')?$/.exec(err.message)?.[1] ?? err.message;
  return `open ${path}: ${description}`;
}

/**
 * The client for `--kubeconfig` (the in-cluster configuration without it), or a StartupError in
 * kubectl's words: `error: stat F: no such file or directory`, `error: error loading config file "F":
 * …`, `Error in configuration: context was not found for specified context: C`, or as
 * controller-runtime says it, `error: invalid configuration: no configuration has been provided …`.
 */
export function loadKubeClient(kubeconfig: string | undefined): KubeClient {
  if (!kubeconfig) {
    if (!process.env.KUBERNETES_SERVICE_HOST || !process.env.KUBERNETES_SERVICE_PORT)
      throw new StartupError(
        'error: invalid configuration: no configuration has been provided, try --kubeconfig (not in a cluster: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are not set)',
      );
    try {
      return KubeClient.load();
    } catch (err) {
      throw new StartupError(`error: unable to load in-cluster configuration: ${(err as Error).message}`);
    }
  }
  let text: string;
  try {
    text = readFileSync(kubeconfig, 'utf8');
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    if (e.code === 'ENOENT') throw new StartupError(`error: stat ${kubeconfig}: no such file or directory`);
    throw new StartupError(
      `error: error loading config file "${kubeconfig}": ${fileErrorText(kubeconfig, e)}`,
    );
  }
  try {
    return KubeClient.fromString(text);
  } catch (err) {
    const message = String((err as Error).message ?? err)
      .split('\n')[0]!
      .replace(/:$/, '');
    if (message.startsWith('Error in configuration')) throw new StartupError(message);
    if (message.startsWith('invalid configuration')) throw new StartupError(`error: ${message}`);
    throw new StartupError(`error: error loading config file "${kubeconfig}": ${message}`);
  }
}

/**
 * Checks that the API server answers (GET /version, as a start-up's discovery would), or throws a
 * StartupError in kubectl's words: `The connection to the server H was refused - did you specify
 * the right host or port?`, `Unable to connect to the server: …`, `error: You must be logged in to
 * the server (Unauthorized)`, `Error from server (Forbidden): …`.
 */
export async function checkApiServer(client: KubeClient, timeoutMs = 30_000): Promise<void> {
  const host = new URL(client.access.server).host;
  try {
    await client.request('GET', '/version', { signal: AbortSignal.timeout(timeoutMs) });
  } catch (err) {
    if (err instanceof KubeApiError) {
      if (err.code === 401)
        throw new StartupError('error: You must be logged in to the server (Unauthorized)');
      throw new StartupError(`Error from server${err.reason ? ` (${err.reason})` : ''}: ${err.message}`);
    }
    const e = err as NodeJS.ErrnoException;
    if (e.code === 'ECONNREFUSED')
      throw new StartupError(
        `The connection to the server ${host} was refused - did you specify the right host or port?`,
      );
    const reason =
      e.name === 'TimeoutError' || e.name === 'AbortError' ? `no answer in ${timeoutMs} ms` : e.message;
    throw new StartupError(`Unable to connect to the server: ${reason}`);
  }
}

/** The client, checked to reach its API server: what a program needs before it starts. */
export async function connectKubeClient(kubeconfig: string | undefined): Promise<KubeClient> {
  const client = loadKubeClient(kubeconfig);
  try {
    await checkApiServer(client);
  } catch (err) {
    client.close();
    throw err;
  }
  return client;
}

/** `connectKubeClient`, or — when it cannot — its one line on stderr and exit 1. */
export async function connectOrExit(kubeconfig: string | undefined): Promise<KubeClient> {
  try {
    return await connectKubeClient(kubeconfig);
  } catch (err) {
    if (!(err instanceof StartupError)) throw err;
    process.stderr.write(`${err.message}\n`);
    process.exit(1);
  }
}

/**
 * Runs a program's start; when it fails, logs `could not start` and writes the reason as one line
 * on stderr, then exits 1 (no stack trace).
 */
export async function startOrExit<T>(log: Logger, start: () => Promise<T>): Promise<T> {
  try {
    return await start();
  } catch (err) {
    const message = (err as Error)?.message ?? String(err);
    log.error({ err: message }, 'could not start');
    process.stderr.write(`${message}\n`);
    process.exit(1);
  }
}
