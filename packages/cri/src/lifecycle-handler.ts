import { connect } from 'node:net';
import type { CriClient } from './client.ts';

/** A Kubernetes `LifecycleHandler` (postStart / preStop). */
export interface LifecycleHandler {
  exec?: { command?: string[] };
  httpGet?: {
    path?: string;
    port: number | string;
    host?: string;
    scheme?: string;
    httpHeaders?: { name: string; value: string }[];
  };
  tcpSocket?: { port: number | string; host?: string };
  sleep?: { seconds: number };
}

/** Where a handler runs: the container (for exec) and the pod's address and ports (for network handlers). */
export interface HandlerTarget {
  containerId: string;
  containerName: string;
  podIP: string;
  ports?: { name?: string; containerPort: number }[];
}

/** Opens and closes a TCP connection (kubelet's tcp handler and probe); rejects with Go's dial wording on timeout. */
export function dialTcp(host: string, port: number, timeoutMs: number): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const socket = connect({ host, port, timeout: timeoutMs });
    socket.once('connect', () => {
      socket.destroy();
      resolve();
    });
    socket.once('timeout', () => {
      socket.destroy();
      reject(new Error(`dial tcp ${host}:${port}: i/o timeout`));
    });
    socket.once('error', (err: NodeJS.ErrnoException) => {
      socket.destroy();
      reject(
        err.code === 'ECONNREFUSED'
          ? new Error(`dial tcp ${host}:${port}: connect: connection refused`)
          : err,
      );
    });
  });
}

/** Resolves a named or numeric port against the container's ports, as kubelet does. */
export function resolvePort(port: number | string, ports: HandlerTarget['ports'] = []): number {
  if (typeof port === 'number') return port;
  if (/^\d+$/.test(port)) return Number(port);
  const found = ports.find((p) => p.name === port);
  if (!found) throw new Error(`couldn't find port: ${port} in ${JSON.stringify(ports)}`);
  return found.containerPort;
}

/**
 * Runs a lifecycle handler for at most `timeoutSeconds`: exec through CRI ExecSync, httpGet and
 * tcpSocket against the pod's address, sleep in place. Resolves with an error message when the
 * handler failed (kubelet's wording), undefined when it succeeded.
 */
export async function runLifecycleHandler(
  cri: CriClient,
  handler: LifecycleHandler,
  target: HandlerTarget,
  timeoutSeconds: number,
): Promise<string | undefined> {
  const timeout = Math.max(1, Math.ceil(timeoutSeconds));
  try {
    if (handler.exec) {
      const command = handler.exec.command ?? [];
      const res = await cri.execSync(target.containerId, command, timeout);
      if (res.exitCode !== 0) {
        const out = Buffer.from(res.stdout ?? []).toString() + Buffer.from(res.stderr ?? []).toString();
        return `command '${command.join(' ')}' exited with ${res.exitCode}: ${out}`;
      }
      return undefined;
    }
    if (handler.httpGet) {
      const g = handler.httpGet;
      const scheme = (g.scheme ?? 'HTTP').toLowerCase();
      const host = g.host || target.podIP;
      const path = g.path ? (g.path.startsWith('/') ? g.path : `/${g.path}`) : '/';
      const url = `${scheme}://${host}:${resolvePort(g.port, target.ports)}${path}`;
      const headers = Object.fromEntries((g.httpHeaders ?? []).map((h) => [h.name, h.value]));
      const res = await fetch(url, { headers, signal: AbortSignal.timeout(timeout * 1000) });
      await res.arrayBuffer();
      if (res.status >= 400)
        return `HTTP lifecycle hook (${path}) for Container "${target.containerName}" failed with status ${res.status}`;
      return undefined;
    }
    if (handler.tcpSocket) {
      const port = resolvePort(handler.tcpSocket.port, target.ports);
      await dialTcp(handler.tcpSocket.host || target.podIP, port, timeout * 1000);
      return undefined;
    }
    if (handler.sleep) {
      await new Promise((r) => setTimeout(r, Math.min(handler.sleep!.seconds, timeout) * 1000));
      return undefined;
    }
    return 'invalid handler';
  } catch (err) {
    return (err as Error).message;
  }
}

/** kubelet's floor for the grace period a container is stopped with. */
export const MIN_STOP_GRACE_SECONDS = 2;

/**
 * Stops a container as kubelet's KillContainer does: the preStop hook (if any) for at most
 * `graceSeconds`, then (when given) `waitForTurn` with the seconds left — kubelet's termination
 * ordering, which holds a native sidecar until the containers it serves have stopped — then
 * StopContainer with what is left of the grace period, at least 2 s. Resolves with the hook's
 * failure text (the stop goes ahead regardless); a failed StopContainer rejects.
 */
export async function stopContainerGracefully(
  cri: CriClient,
  target: HandlerTarget,
  preStop: LifecycleHandler | undefined,
  graceSeconds: number,
  waitForTurn?: (leftSeconds: number) => Promise<void>,
): Promise<string | undefined> {
  const started = Date.now();
  const left = () => Math.ceil(graceSeconds - (Date.now() - started) / 1000);
  const failure = preStop ? await runLifecycleHandler(cri, preStop, target, graceSeconds) : undefined;
  if (waitForTurn && left() > 0) await waitForTurn(left());
  await cri.stopContainer(target.containerId, Math.max(MIN_STOP_GRACE_SECONDS, left()));
  return failure;
}
