import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from '@kruise/stack/free-port';
import bcrypt from 'bcryptjs';
import { until } from './env.ts';
import type { TokenServer } from './token-server.ts';

/** A registry with basic auth (htpasswd), started and stopped by PID, plain HTTP on loopback. */
export interface PrivateRegistry {
  host: string;
  stop(): Promise<void>;
}

/**
 * Starts a second docker-registry, copies `source` into it as `private:v1`, and tells containerd
 * (through its certs.d hosts.toml) to use plain HTTP for it. Without `tokens` it requires
 * `user`/`password` (htpasswd: nothing anonymous); with `tokens` it takes the bearer tokens of that
 * server (token auth, as Docker Hub: anonymous pulls allowed, wrong credentials refused).
 */
export async function startPrivateRegistry(
  stackDir: string,
  source: string,
  user: string,
  password: string,
  tokens?: TokenServer,
): Promise<PrivateRegistry> {
  const port = await freePort();
  const host = `127.0.0.1:${port}`;
  const dir = join(stackDir, `private-${port}`);
  mkdirSync(join(dir, 'data'), { recursive: true });
  writeFileSync(join(dir, 'htpasswd'), `${user}:${bcrypt.hashSync(password, 10)}\n`);
  let auth = `htpasswd: { realm: kruise-test, path: ${dir}/htpasswd }`;
  if (tokens) {
    writeFileSync(join(dir, 'token-cert.pem'), tokens.certificate);
    auth = `token: { realm: "${tokens.realm}", service: ${tokens.service}, issuer: ${tokens.issuer}, rootcertbundle: ${dir}/token-cert.pem }`;
  }
  writeFileSync(
    join(dir, 'config.yml'),
    `version: 0.1\nlog: { level: warn, accesslog: { disabled: true } }\nstorage:\n  filesystem: { rootdirectory: ${dir}/data }\nauth:\n  ${auth}\nhttp: { addr: ${host} }\n`,
  );
  const child: ChildProcess = spawn('docker-registry', ['serve', join(dir, 'config.yml')], {
    stdio: 'ignore',
  });
  await until(
    () =>
      fetch(`http://${host}/v2/`)
        .then((r) => r.status === 401)
        .catch(() => false),
    { what: `the registry on ${host} to answer (401 to anonymous /v2/)` },
  );
  // Asynchronous: a token server for this registry may run in this very process.
  await promisify(execFile)('skopeo', [
    'copy',
    '--quiet',
    '--src-tls-verify=false',
    '--dest-tls-verify=false',
    '--dest-creds',
    `${user}:${password}`,
    `docker://${source}`,
    `docker://${host}/private:v1`,
  ]);
  const certs = join(stackDir, 'containerd/certs.d', host);
  mkdirSync(certs, { recursive: true });
  writeFileSync(
    join(certs, 'hosts.toml'),
    `server = "http://${host}"\n[host."http://${host}"]\n  capabilities = ["pull", "resolve"]\n`,
  );
  return {
    host,
    stop: async () => {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    },
  };
}
