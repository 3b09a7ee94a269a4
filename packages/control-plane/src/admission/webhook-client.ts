import { createHash } from 'node:crypto';
import { Agent, request } from 'node:https';
import { checkServerIdentity } from 'node:tls';

/** Where and how to reach one webhook. */
export interface WebhookTarget {
  host: string;
  port: number;
  path: string;
  /** Name the serving certificate must carry (the Service DNS name or the URL host). */
  serverName: string;
  /** PEM CA bundle; the system roots when absent. */
  ca: string | undefined;
  /** Shown in error messages: the URL kube-apiserver would have used. */
  displayUrl: string;
}

/** Keep-alive agents per webhook endpoint and trust, as kube-apiserver caches its transports. */
const agents = new Map<string, Agent>();
const MAX_AGENTS = 64;
/**
 * How long an idle webhook connection is kept: Go's IdleConnTimeout in kube-apiserver's transports.
 * A burst of admission calls after a pause then reuses its connections instead of paying a TLS
 * handshake per call (ADR 0015).
 */
export const WEBHOOK_IDLE_CONNECTION_MS = 90_000;
/** Errors of a kept connection the server closed as the request went out: the call is sent again once. */
const STALE_CONNECTION_ERRORS = new Set(['ECONNRESET', 'EPIPE']);

function agentFor(target: WebhookTarget): Agent {
  const key = `${target.host}:${target.port}|${target.serverName}|${createHash('sha256')
    .update(target.ca ?? '')
    .digest('hex')}`;
  let agent = agents.get(key);
  if (!agent) {
    if (agents.size >= MAX_AGENTS) {
      const [oldest] = agents.keys();
      agents.get(oldest!)?.destroy();
      agents.delete(oldest!);
    }
    agent = new Agent({
      keepAlive: true,
      maxSockets: 64,
      timeout: WEBHOOK_IDLE_CONNECTION_MS,
      ca: target.ca,
      servername: /^\d+\.\d+\.\d+\.\d+$/.test(target.serverName) ? undefined : target.serverName,
      checkServerIdentity: (_host, cert) => checkServerIdentity(target.serverName, cert),
    });
    agents.set(key, agent);
  }
  return agent;
}

/** Closes the cached connections (when the server stops). */
export function closeWebhookConnections(): void {
  for (const a of agents.values()) a.destroy();
  agents.clear();
}

/**
 * POSTs an AdmissionReview and returns the parsed response, or throws an Error describing the failure.
 * A kept connection that the server closed just as the call went out (its own idle timeout) is not a
 * failure of the webhook: the call is sent once more on a new connection, as kube-apiserver retries
 * connection resets.
 */
export async function callWebhook(target: WebhookTarget, body: string, timeoutMs: number): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  try {
    return await postReview(target, body, timeoutMs, true);
  } catch (err) {
    if (!(err instanceof StaleConnection)) throw err;
    return postReview(target, body, Math.max(1, deadline - Date.now()), false);
  }
}

/** A reused connection failed before any answer: the request never reached a handler. */
class StaleConnection extends Error {}

function postReview(target: WebhookTarget, body: string, timeoutMs: number, mayRetry: boolean): Promise<any> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: target.host,
        port: target.port,
        path: target.path,
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json',
          'content-length': Buffer.byteLength(body),
        },
        timeout: timeoutMs,
        agent: agentFor(target),
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          if ((res.statusCode ?? 0) >= 300) {
            reject(
              new Error(
                `failed to call webhook: the server responded with the status code ${res.statusCode}`,
              ),
            );
            return;
          }
          try {
            resolve(JSON.parse(text));
          } catch {
            reject(
              new Error('failed to call webhook: the server returned a response that is not valid JSON'),
            );
          }
        });
        res.on('error', (e) => reject(new Error(`failed to call webhook: ${e.message}`)));
      },
    );
    req.on('timeout', () => {
      req.destroy(new Error(`context deadline exceeded`));
    });
    req.on('error', (e: any) => {
      if (mayRetry && req.reusedSocket && STALE_CONNECTION_ERRORS.has(e.code)) {
        reject(new StaleConnection(e.message));
        return;
      }
      reject(
        new Error(
          `failed to call webhook: Post "${target.displayUrl}": ${e.code === 'ECONNREFUSED' ? `dial tcp ${target.host}:${target.port}: connect: connection refused` : e.message}`,
        ),
      );
    });
    req.end(body);
  });
}
