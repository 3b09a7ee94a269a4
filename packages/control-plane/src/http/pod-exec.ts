import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { connect } from 'node:tls';
import type { Attributes, UserInfo } from '../auth/attributes.ts';
import { forbiddenMessage } from '../auth/rbac.ts';
import { storedObjects } from '../auth/tokens.ts';
import { ApiError, badRequest, forbidden, internalError, pathNotFound, unauthorized } from '../errors.ts';
import type { HandlerDeps } from './deps.ts';
import { containerOf, kubeletAddress } from './pod-log.ts';

const EXEC_PATH = /^\/api\/v1\/namespaces\/([^/]+)\/pods\/([^/]+)\/exec$/;
/** The query parameters of PodExecOptions passed on to kubelet. */
const PASSED_ON = ['command', 'stdin', 'stdout', 'stderr', 'tty'];
/** Headers the kubelet leg does not get (the client's credentials stay here). */
const DROPPED = new Set(['host', 'authorization', 'content-length']);

/** An HTTP error written on the raw connection of a refused upgrade, as a Status. */
function refuse(socket: Duplex, err: ApiError): void {
  const body = JSON.stringify(err.toStatus());
  socket.end(
    `HTTP/1.1 ${err.code} ${err.reason}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

/**
 * `pods/exec` (`kubectl exec`): an upgrade request (WebSocket or SPDY) authenticated and
 * authorized as kube-apiserver does (`create` and `get` on pods/exec), its container checked, then
 * passed on to the kubelet of the pod's node (`/exec/<namespace>/<pod>/<container>`) and the two
 * connections spliced; the protocol is what kubectl and the node's runtime agree on (with
 * containerd 1.6: kubectl's v5 WebSocket is refused and it falls back to SPDY, ADR 0033).
 * Returns the server's `upgrade` listener.
 */
export function podExecUpgrade(
  deps: Pick<HandlerDeps, 'store' | 'registry' | 'objects' | 'tokens' | 'rbac'>,
) {
  const authorize = (user: UserInfo, namespace: string, name: string) => {
    for (const verb of ['create', 'get']) {
      const attrs: Attributes = { verb, group: '', resource: 'pods', subresource: 'exec', namespace, name };
      if (!deps.rbac.authorize(user, attrs).allowed)
        throw forbidden(forbiddenMessage(user, attrs), { name, group: '', kind: 'pods' });
    }
  };
  return (req: IncomingMessage, socket: Duplex, head: Buffer): void => {
    socket.on('error', () => socket.destroy());
    try {
      const url = new URL(req.url ?? '/', 'https://localhost');
      const m = EXEC_PATH.exec(url.pathname);
      if (!m) throw pathNotFound();
      const [namespace, name] = m.slice(1).map(decodeURIComponent) as [string, string];
      const token = /^Bearer\s+(.+)$/i.exec(req.headers.authorization ?? '')?.[1]?.trim();
      const user = deps.tokens.authenticate(token, storedObjects(deps.store));
      if (!user) throw unauthorized();
      authorize(user, namespace, name);
      const pods = deps.registry.lookup('', 'v1', 'pods')!;
      const pod = deps.objects.getEntry(pods, namespace, name).obj;
      const container = containerOf(pod, url.searchParams.get('container') ?? '');
      if (!url.searchParams.getAll('command').length) throw badRequest('you must specify at least 1 command');
      const nodeName: string | undefined = pod.spec?.nodeName;
      if (!nodeName) throw badRequest(`pod ${name} does not have a host assigned`);
      const nodes = deps.registry.lookup('', 'v1', 'nodes')!;
      const { host, port } = kubeletAddress(deps.objects.getEntry(nodes, '', nodeName).obj);
      const params = new URLSearchParams();
      for (const k of PASSED_ON) for (const v of url.searchParams.getAll(k)) params.append(k, v);
      const path = `/exec/${[namespace, name, container].map(encodeURIComponent).join('/')}?${params}`;
      const lines = [`GET ${path} HTTP/1.1`, `Host: ${host}:${port}`];
      for (let i = 0; i < req.rawHeaders.length; i += 2)
        if (!DROPPED.has(req.rawHeaders[i]!.toLowerCase()))
          lines.push(`${req.rawHeaders[i]}: ${req.rawHeaders[i + 1]}`);
      // kube-apiserver does not verify kubelets' serving certificates unless told to.
      let connected = false;
      const kubelet = connect({ host, port, rejectUnauthorized: false }, () => {
        connected = true;
        kubelet.write(`${lines.join('\r\n')}\r\n\r\n`);
        if (head.length) kubelet.write(head);
        kubelet.pipe(socket);
        socket.pipe(kubelet);
      });
      const end = () => {
        kubelet.destroy();
        socket.destroy();
      };
      kubelet.on('error', (err) => {
        if (!connected) return refuse(socket, internalError(`error dialing backend: ${err.message}`));
        end();
      });
      kubelet.on('close', end);
      socket.on('close', end);
    } catch (err) {
      refuse(socket, err instanceof ApiError ? err : internalError((err as Error).message));
    }
  };
}
