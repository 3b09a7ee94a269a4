import { queryBool } from './query.ts';

/** What a request asks for, parsed from its method and path (as kube-apiserver's RequestInfo). */
export interface RequestInfo {
  isResourceRequest: boolean;
  path: string;
  verb: string;
  apiPrefix: string;
  group: string;
  version: string;
  namespace: string;
  resource: string;
  subresource: string;
  name: string;
}

const NAMESPACE_SUBRESOURCES = new Set(['status', 'finalize']);

/** Parses a request path (without query) for a method and whether it is a watch. */
export function parseRequestInfo(method: string, path: string, query: URLSearchParams): RequestInfo {
  const info: RequestInfo = {
    isResourceRequest: false,
    path,
    verb: method.toLowerCase(),
    apiPrefix: '',
    group: '',
    version: '',
    namespace: '',
    resource: '',
    subresource: '',
    name: '',
  };
  const parts = path
    .split('/')
    .filter((p) => p !== '')
    .map(decodeURIComponent);
  if (parts[0] !== 'api' && parts[0] !== 'apis') return info;
  info.apiPrefix = parts[0];
  let rest = parts.slice(1);
  if (info.apiPrefix === 'apis') {
    if (rest.length < 2) return info;
    info.group = rest[0]!;
    rest = rest.slice(1);
  }
  if (rest.length < 2) {
    info.version = rest[0] ?? '';
    return info;
  }
  info.version = rest[0]!;
  rest = rest.slice(1);
  info.isResourceRequest = true;
  if (rest[0] === 'namespaces' && rest.length > 1) {
    info.namespace = rest[1]!;
    if (rest.length > 2 && !NAMESPACE_SUBRESOURCES.has(rest[2]!)) rest = rest.slice(2);
  }
  info.resource = rest[0] ?? '';
  info.name = rest[1] ?? '';
  info.subresource = rest[2] ?? '';
  if (rest.length > 3) info.isResourceRequest = false;
  if (info.resource === 'namespaces' && info.name) info.namespace = '';
  const watch = queryBool(query, 'watch');
  switch (method) {
    case 'GET':
    case 'HEAD':
      info.verb = info.name ? 'get' : watch ? 'watch' : 'list';
      break;
    case 'POST':
      info.verb = 'create';
      break;
    case 'PUT':
      info.verb = 'update';
      break;
    case 'PATCH':
      info.verb = 'patch';
      break;
    case 'DELETE':
      info.verb = info.name ? 'delete' : 'deletecollection';
      break;
  }
  return info;
}
