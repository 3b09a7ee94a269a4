import type { ServerResponse } from 'node:http';
import { request } from 'node:https';
import { ApiError, badRequest, invalid, type StatusCause } from '../errors.ts';
import type { KubeObject } from '../registry/types.ts';

/** kubelet's port when a Node does not report one (`daemonEndpoints.kubeletEndpoint.Port`). */
const DEFAULT_KUBELET_PORT = 10250;
/** The query parameters of PodLogOptions passed on to kubelet. */
const PASSED_ON = [
  'follow',
  'previous',
  'timestamps',
  'tailLines',
  'limitBytes',
  'sinceSeconds',
  'sinceTime',
];

/** The container a log or exec request is for, as kube-apiserver picks and checks it. */
export function containerOf(pod: KubeObject, requested: string): string {
  const name = pod.metadata?.name;
  const containers: string[] = (pod.spec?.containers ?? []).map((c: any) => c.name);
  const init: string[] = (pod.spec?.initContainers ?? []).map((c: any) => c.name);
  const ephemeral: string[] = (pod.spec?.ephemeralContainers ?? []).map((c: any) => c.name);
  if (!requested) {
    if (containers.length === 1) return containers[0]!;
    throw badRequest(
      `a container name must be specified for pod ${name}, choose one of: [${containers.join(' ')}]${
        init.length ? ` or one of the init containers: [${init.join(' ')}]` : ''
      }`,
    );
  }
  if (![...containers, ...init, ...ephemeral].includes(requested))
    throw badRequest(`container ${requested} is not valid for pod ${name}`);
  return requested;
}

/** PodLogOptions validation, with kube-apiserver's words. */
function validate(pod: string, query: URLSearchParams): void {
  const causes: StatusCause[] = [];
  const check = (field: string, min: number) => {
    const v = query.get(field);
    if (v === null) return;
    const n = Number(v);
    if (!Number.isInteger(n)) throw badRequest(`strconv.ParseInt: parsing "${v}": invalid syntax`);
    if (n < min)
      causes.push({
        reason: 'FieldValueInvalid',
        field,
        message: `Invalid value: ${n}: must be greater than or equal to ${min}`,
      });
  };
  check('tailLines', 0);
  check('limitBytes', 1);
  check('sinceSeconds', 1);
  if (query.get('sinceSeconds') !== null && query.get('sinceTime') !== null)
    causes.push({
      reason: 'FieldValueForbidden',
      field: '',
      message: 'at most one of `sinceTime` or `sinceSeconds` may be specified',
    });
  if (causes.length) throw invalid('PodLogOptions', '', pod, causes);
}

/** Where a Node's kubelet listens: its InternalIP (else Hostname, else name) and `daemonEndpoints` port. */
export function kubeletAddress(node: KubeObject): { host: string; port: number } {
  const addresses: { type?: string; address?: string }[] = node.status?.addresses ?? [];
  const host =
    addresses.find((a) => a.type === 'InternalIP')?.address ??
    addresses.find((a) => a.type === 'Hostname')?.address ??
    node.metadata?.name ??
    '';
  return { host, port: Number(node.status?.daemonEndpoints?.kubeletEndpoint?.Port) || DEFAULT_KUBELET_PORT };
}

const REASONS: Record<number, string> = { 400: 'BadRequest', 403: 'Forbidden', 404: 'NotFound' };

/**
 * `GET …/pods/<name>/log`: streams the container's log from the kubelet of the pod's node, as
 * kube-apiserver does (its address from the Node's InternalIP and `daemonEndpoints`, kubelet's serving
 * certificate not verified, kubelet's errors passed on as a Status). A pod not yet on a node has
 * no log. A followed log ends when the client goes.
 */
export async function streamPodLog(
  res: ServerResponse,
  pod: KubeObject,
  query: URLSearchParams,
  nodeNamed: (name: string) => KubeObject,
): Promise<void> {
  const container = containerOf(pod, query.get('container') ?? '');
  validate(pod.metadata?.name ?? '', query);
  const nodeName: string | undefined = pod.spec?.nodeName;
  if (!nodeName) {
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end();
    return;
  }
  const { host, port } = kubeletAddress(nodeNamed(nodeName));
  const params = new URLSearchParams();
  for (const k of PASSED_ON) {
    const v = query.get(k);
    if (v !== null) params.set(k, v);
  }
  const path = `/containerLogs/${[pod.metadata?.namespace, pod.metadata?.name, container].map((s) => encodeURIComponent(s ?? '')).join('/')}${params.size ? `?${params}` : ''}`;
  const url = `https://${host.includes(':') ? `[${host}]` : host}:${port}${path}`;
  await new Promise<void>((resolve, reject) => {
    const upstream = request(
      { host, port, path, method: 'GET', rejectUnauthorized: false, agent: false },
      (kubelet) => {
        const code = kubelet.statusCode ?? 500;
        if (code !== 200) {
          let text = '';
          kubelet.on('data', (c) => (text += c));
          kubelet.on('end', () =>
            reject(
              new ApiError(code, REASONS[code] ?? 'InternalError', text.trim() || `kubelet answered ${code}`),
            ),
          );
          return;
        }
        res.writeHead(200, { 'content-type': 'text/plain' });
        kubelet.pipe(res);
        kubelet.on('end', () => resolve());
        kubelet.on('error', () => {
          res.end();
          resolve();
        });
      },
    );
    res.on('close', () => upstream.destroy());
    upstream.on('error', (e: NodeJS.ErrnoException) => {
      if (res.headersSent) {
        res.end();
        return resolve();
      }
      const cause =
        e.code === 'ECONNREFUSED' ? `dial tcp ${host}:${port}: connect: connection refused` : e.message;
      reject(new ApiError(500, 'InternalError', `Get "${url}": ${cause}`));
    });
    upstream.end();
  });
}
