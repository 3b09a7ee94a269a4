import type { CriClient } from '@kruise/cri/client';
import { dialTcp, type HandlerTarget, resolvePort } from '@kruise/cri/lifecycle-handler';
import type { Probe } from 'kubernetes-types/core/v1.js';
import { grpcHealthCheck } from './grpc-health.ts';

/** One probe's outcome and kubelet's words for it (the event text on failure). */
export interface ProbeOutcome {
  ok: boolean;
  output: string;
}

/** kubelet's probe User-Agent (`kube-probe/<major>.<minor>`). */
const USER_AGENT = 'kube-probe/1.33';

async function execProbe(
  cri: CriClient,
  id: string,
  command: string[],
  timeout: number,
): Promise<ProbeOutcome> {
  try {
    const res = await cri.execSync(id, command, timeout);
    const output = Buffer.from(res.stdout ?? []).toString() + Buffer.from(res.stderr ?? []).toString();
    return { ok: res.exitCode === 0, output };
  } catch (err) {
    const e = err as { code?: number; message: string };
    // containerd ends an ExecSync past its timeout with DEADLINE_EXCEEDED (gRPC code 4).
    if (e.code === 4 || /timeout|deadline/i.test(e.message))
      return { ok: false, output: `command ${JSON.stringify(command.join(' '))} timed out` };
    return { ok: false, output: e.message };
  }
}

async function httpProbe(
  g: NonNullable<Probe['httpGet']>,
  target: HandlerTarget,
  timeout: number,
): Promise<ProbeOutcome> {
  const scheme = (g.scheme ?? 'HTTP').toLowerCase();
  const host = g.host || target.podIP;
  const path = g.path ? (g.path.startsWith('/') ? g.path : `/${g.path}`) : '/';
  const url = `${scheme}://${host}:${resolvePort(g.port, target.ports)}${path}`;
  const headers: Record<string, string> = { 'user-agent': USER_AGENT, accept: '*/*' };
  for (const h of g.httpHeaders ?? []) headers[h.name.toLowerCase()] = h.value;
  try {
    const res = await fetch(url, {
      headers,
      redirect: 'manual',
      signal: AbortSignal.timeout(timeout * 1000),
    });
    await res.arrayBuffer().catch(() => undefined);
    if (res.status >= 200 && res.status < 400) return { ok: true, output: '' };
    return { ok: false, output: `HTTP probe failed with statuscode: ${res.status}` };
  } catch (err) {
    const e = err as Error & { cause?: { code?: string } };
    if (e.name === 'TimeoutError')
      return {
        ok: false,
        output: `Get ${JSON.stringify(url)}: context deadline exceeded (Client.Timeout exceeded while awaiting headers)`,
      };
    if (e.cause?.code === 'ECONNREFUSED')
      return {
        ok: false,
        output: `Get ${JSON.stringify(url)}: dial tcp ${host}:${resolvePort(g.port, target.ports)}: connect: connection refused`,
      };
    return { ok: false, output: `Get ${JSON.stringify(url)}: ${e.cause ? String(e.cause) : e.message}` };
  }
}

/**
 * Runs a probe once against a container as kubelet's prober does: exec through CRI ExecSync (exit
 * 0 succeeds), httpGet (200–399 succeeds, redirects not followed), tcpSocket (a connection
 * succeeds) and grpc (grpc.health.v1 SERVING succeeds), each within `timeoutSeconds` (default 1).
 */
export async function runProbe(cri: CriClient, probe: Probe, target: HandlerTarget): Promise<ProbeOutcome> {
  const timeout = probe.timeoutSeconds ?? 1;
  try {
    if (probe.exec) return await execProbe(cri, target.containerId, probe.exec.command ?? [], timeout);
    if (probe.httpGet) return await httpProbe(probe.httpGet, target, timeout);
    if (probe.tcpSocket) {
      const host = probe.tcpSocket.host || target.podIP;
      await dialTcp(host, resolvePort(probe.tcpSocket.port, target.ports), timeout * 1000);
      return { ok: true, output: '' };
    }
    if (probe.grpc)
      return await grpcHealthCheck(target.podIP, probe.grpc.port, probe.grpc.service ?? '', timeout * 1000);
    return { ok: false, output: 'missing probe handler' };
  } catch (err) {
    return { ok: false, output: (err as Error).message };
  }
}
