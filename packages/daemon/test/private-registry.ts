import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import bcrypt from 'bcryptjs';
import { freePort } from '../../../test/support/free-port.ts';

/** A registry with basic auth (htpasswd), started and stopped by PID, plain HTTP on loopback. */
export interface PrivateRegistry {
  host: string;
  stop(): Promise<void>;
}

/**
 * Starts a second docker-registry requiring `user`/`password`, copies `source` into it as
 * `private:v1`, and tells containerd (through its certs.d hosts.toml) to use plain HTTP for it.
 */
export async function startPrivateRegistry(
  stackDir: string,
  source: string,
  user: string,
  password: string,
): Promise<PrivateRegistry> {
  const port = await freePort();
  const host = `127.0.0.1:${port}`;
  const dir = join(stackDir, `private-${port}`);
  mkdirSync(join(dir, 'data'), { recursive: true });
  writeFileSync(join(dir, 'htpasswd'), `${user}:${bcrypt.hashSync(password, 10)}\n`);
  writeFileSync(
    join(dir, 'config.yml'),
    `version: 0.1\nlog: { level: warn, accesslog: { disabled: true } }\nstorage:\n  filesystem: { rootdirectory: ${dir}/data }\nauth:\n  htpasswd: { realm: kruise-test, path: ${dir}/htpasswd }\nhttp: { addr: ${host} }\n`,
  );
  const child: ChildProcess = spawn('docker-registry', ['serve', join(dir, 'config.yml')], {
    stdio: 'ignore',
  });
  for (let i = 0; i < 100; i++) {
    const ok = await fetch(`http://${host}/v2/`)
      .then((r) => r.status === 401)
      .catch(() => false);
    if (ok) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  execFileSync('skopeo', [
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
