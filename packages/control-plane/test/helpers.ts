import { execFile } from 'node:child_process';
import type { IncomingHttpHeaders } from 'node:http';
import { request } from 'node:https';
import { ApiException, KubeConfig } from '@kubernetes/client-node';
import { ControlPlane } from '../src/index.ts';

/** Starts a control plane on a free loopback port. */
export async function startControlPlane(
  options: Parameters<typeof ControlPlane.start>[0] = {},
): Promise<ControlPlane> {
  return ControlPlane.start(options);
}

/** A client-node KubeConfig for the admin, or for a bearer token. */
export function kubeConfigFor(cp: ControlPlane, token?: string): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromString(cp.kubeconfig(token, token ? 'user' : 'admin'));
  return kc;
}

/** The Kubernetes Status carried by a client-node error. */
export function statusOf(err: unknown): { code: number; reason: string; message: string; details?: any } {
  if (!(err instanceof ApiException)) throw err;
  const body = (typeof err.body === 'string' ? JSON.parse(err.body) : err.body) ?? {};
  return { code: err.code, reason: body.reason, message: body.message, details: body.details };
}

/** Runs `fn` expecting it to fail; returns the Status. */
export async function expectStatus(fn: () => Promise<unknown>): Promise<ReturnType<typeof statusOf>> {
  try {
    await fn();
  } catch (err) {
    return statusOf(err);
  }
  throw new Error('expected the request to fail');
}

export { eventually } from '../../../test/support/poll.ts';

/** A raw HTTPS request to the control plane (admin token unless `token` is given); the body is parsed JSON. */
export function rawRequest(
  cp: ControlPlane,
  method: string,
  path: string,
  options: { body?: string; headers?: Record<string, string>; token?: string } = {},
): Promise<{ code: number; body: any; headers: IncomingHttpHeaders }> {
  const url = new URL(cp.url + path);
  return new Promise((resolve, reject) => {
    request(
      {
        method,
        host: url.hostname,
        port: url.port,
        path: `${url.pathname}${url.search}`,
        ca: cp.caCert,
        headers: {
          authorization: `Bearer ${options.token ?? cp.adminToken}`,
          'content-type': 'application/json',
          ...options.headers,
        },
      },
      (res) => {
        let text = '';
        res.on('data', (c) => (text += c));
        res.on('end', () =>
          resolve({
            code: res.statusCode ?? 0,
            body: text ? JSON.parse(text) : undefined,
            headers: res.headers,
          }),
        );
      },
    )
      .on('error', reject)
      .end(options.body);
  });
}

/** Runs a kubectl binary with a kubeconfig; resolves with its exit code and output (never rejects). */
export function runKubectl(
  bin: string,
  kubeconfig: string,
  args: string[],
  input?: string,
): Promise<{ code: number; out: string; err: string }> {
  return new Promise((resolve) => {
    const child = execFile(
      bin,
      args,
      { env: { ...process.env, KUBECONFIG: kubeconfig }, timeout: 20_000 },
      (error, out, err) => resolve({ code: error ? ((error as any).code ?? 1) : 0, out, err }),
    );
    child.stdin?.end(input ?? '');
  });
}
