import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

/** How to reach and authenticate to one API server. */
export interface ClusterAccess {
  server: string;
  /** PEM CA bundle; the system roots when absent. */
  ca?: string;
  insecureSkipTlsVerify?: boolean;
  tlsServerName?: string;
  /** PEM client certificate and key (mutual TLS). */
  cert?: string;
  key?: string;
  /** Default namespace of the context. */
  namespace?: string;
  /** Headers that authenticate a request (a bearer token, basic auth), refreshed as needed. */
  authHeaders: () => Promise<Record<string, string>>;
}

const IN_CLUSTER_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';

const dataOrFile = (data: unknown, file: unknown): string | undefined => {
  if (typeof data === 'string' && data) return Buffer.from(data, 'base64').toString('utf8');
  if (typeof file === 'string' && file) return readFileSync(file, 'utf8');
  return undefined;
};

/** A token read from a file, re-read every minute (projected service-account tokens rotate). */
function fileToken(path: string): () => Promise<Record<string, string>> {
  let cached = '';
  let readAt = 0;
  return async () => {
    if (!cached || Date.now() - readAt > 60_000) {
      cached = readFileSync(path, 'utf8').trim();
      readAt = Date.now();
    }
    return { authorization: `Bearer ${cached}` };
  };
}

/** client.authentication.k8s.io exec plugins: runs the command and caches its token until it expires. */
function execToken(exec: any): () => Promise<Record<string, string>> {
  let token = '';
  let expires = 0;
  return async () => {
    if (!token || Date.now() >= expires) {
      const env = {
        ...process.env,
        ...Object.fromEntries((exec.env ?? []).map((e: any) => [e.name, e.value])),
      };
      const stdout = await new Promise<string>((resolve, reject) =>
        execFile(exec.command, exec.args ?? [], { env, timeout: 30_000 }, (err, out) =>
          err
            ? reject(new Error(`exec credential plugin ${exec.command} failed: ${err.message}`))
            : resolve(out),
        ),
      );
      const status = JSON.parse(stdout)?.status ?? {};
      if (!status.token) throw new Error(`exec credential plugin ${exec.command} returned no token`);
      token = status.token;
      expires = status.expirationTimestamp
        ? Date.parse(status.expirationTimestamp) - 10_000
        : Date.now() + 5 * 60_000;
    }
    return { authorization: `Bearer ${token}` };
  };
}

/** JSON first (kubeconfigs written by tools often are); the YAML parser is loaded only when needed. */
function parseConfigText(text: string): any {
  try {
    return JSON.parse(text);
  } catch {
    const { parse } = createRequire(import.meta.url)('yaml') as typeof import('yaml');
    return parse(text);
  }
}

/**
 * Reads a kubeconfig: the current (or named) context's cluster, user and namespace. Supports
 * certificate-authority(-data), insecure-skip-tls-verify, tls-server-name, token, tokenFile,
 * client certificates, basic auth and exec credential plugins.
 */
export function parseKubeconfig(text: string, contextName?: string): ClusterAccess {
  const config = parseConfigText(text) ?? {};
  if (typeof config !== 'object' || Array.isArray(config))
    throw new Error('not a kubeconfig: the file holds no YAML or JSON mapping');
  const name = contextName ?? config['current-context'];
  if (!name && !config.contexts?.length && !config.clusters?.length)
    throw new Error('invalid configuration: no configuration has been provided');
  const context = (config.contexts ?? []).find((c: any) => c.name === name)?.context;
  if (!context)
    throw new Error(`Error in configuration: context was not found for specified context: ${name ?? ''}`);
  const cluster = (config.clusters ?? []).find((c: any) => c.name === context.cluster)?.cluster;
  if (!cluster?.server)
    throw new Error(`invalid configuration: no server found for cluster "${context.cluster}"`);
  const user = (config.users ?? []).find((u: any) => u.name === context.user)?.user ?? {};
  let authHeaders: ClusterAccess['authHeaders'] = async () => ({});
  if (user.token) authHeaders = async () => ({ authorization: `Bearer ${user.token}` });
  else if (user.tokenFile) authHeaders = fileToken(user.tokenFile);
  else if (user.exec) authHeaders = execToken(user.exec);
  else if (user.username) {
    const basic = Buffer.from(`${user.username}:${user.password ?? ''}`).toString('base64');
    authHeaders = async () => ({ authorization: `Basic ${basic}` });
  }
  const ca = dataOrFile(cluster['certificate-authority-data'], cluster['certificate-authority']);
  const cert = dataOrFile(user['client-certificate-data'], user['client-certificate']);
  const key = dataOrFile(user['client-key-data'], user['client-key']);
  return {
    server: String(cluster.server).replace(/\/+$/, ''),
    ...(ca ? { ca } : {}),
    ...(cluster['insecure-skip-tls-verify'] ? { insecureSkipTlsVerify: true } : {}),
    ...(cluster['tls-server-name'] ? { tlsServerName: cluster['tls-server-name'] } : {}),
    ...(cert ? { cert } : {}),
    ...(key ? { key } : {}),
    ...(context.namespace ? { namespace: context.namespace } : {}),
    authHeaders,
  };
}

/** The in-cluster configuration: the service account's token and CA, and the Service's address. */
export function inClusterAccess(dir = IN_CLUSTER_DIR): ClusterAccess {
  const host = process.env.KUBERNETES_SERVICE_HOST;
  const port = process.env.KUBERNETES_SERVICE_PORT;
  if (!host || !port)
    throw new Error(
      'not running in a cluster: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are not set; pass --kubeconfig',
    );
  const server = `https://${host.includes(':') ? `[${host}]` : host}:${port}`;
  let namespace: string | undefined;
  try {
    namespace = readFileSync(`${dir}/namespace`, 'utf8').trim();
  } catch {
    namespace = undefined;
  }
  return {
    server,
    ca: readFileSync(`${dir}/ca.crt`, 'utf8'),
    ...(namespace ? { namespace } : {}),
    authHeaders: fileToken(`${dir}/token`),
  };
}
