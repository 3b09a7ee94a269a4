import type { IncomingMessage, ServerResponse } from 'node:http';
import type { WriteOptions } from '../../api/context.ts';
import type { UserInfo } from '../../auth/attributes.ts';
import type { ResourceType } from '../../registry/types.ts';
import { managerOf } from '../../ssa/field-manager.ts';
import type { HandlerDeps } from '../deps.ts';
import { sendObject } from '../negotiation.ts';
import type { RequestInfo } from '../request-info.ts';
import { writeOptionsOf } from '../write-options.ts';

/** One resource request as its verb's handler serves it (kube-apiserver's RequestScope). */
export interface RequestScope {
  deps: HandlerDeps;
  req: IncomingMessage;
  res: ServerResponse;
  type: ResourceType;
  info: RequestInfo;
  query: URLSearchParams;
  user: UserInfo;
  /** The write's options from the query (validated), with the field manager. */
  options: WriteOptions & { warnings: string[] };
  /** Answers with an object in the client's media type, the options' warnings as `Warning` headers. */
  send(code: number, body: unknown, rawJson?: string): void;
}

/** The scope of a request; bad write options are a 422 before anything is read. */
export function requestScope(
  deps: HandlerDeps,
  req: IncomingMessage,
  res: ServerResponse,
  type: ResourceType,
  info: RequestInfo,
  query: URLSearchParams,
  user: UserInfo,
): RequestScope {
  const options = {
    ...writeOptionsOf(info.verb, query, user, info.subresource),
    fieldManager: managerOf(query.get('fieldManager'), req.headers['user-agent']),
  };
  const { warnings } = options;
  const accept = req.headers.accept;
  const send = (code: number, body: unknown, rawJson?: string) => {
    if (warnings.length && !res.headersSent)
      res.setHeader(
        'Warning',
        // RFC 7234 warn-text: a quoted string with `"` and `\` escaped (kubectl unescapes it).
        warnings.map((w) => `299 - "${w.replace(/[\\"]/g, (c) => `\\${c}`)}"`),
      );
    sendObject(res, code, body, accept, rawJson);
  };
  return { deps, req, res, type, info, query, user, options, send };
}
