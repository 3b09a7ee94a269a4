import type { IncomingMessage, ServerResponse } from 'node:http';
import { parse as parseYaml } from 'yaml';
import { badRequest, unsupportedMediaType } from '../errors.ts';
import { decodeObject, encodeObject } from '../protobuf/codec.ts';
import type { ResourceType } from '../registry/types.ts';
import { parseJson, readRawBody } from './body.ts';
import { sendJson } from './respond.ts';

/** Kubernetes' protobuf media type. */
export const PROTOBUF = 'application/vnd.kubernetes.protobuf';

/** Media types a request body may have (kube-apiserver's serializers, in its order). */
export const BODY_MEDIA_TYPES = ['application/json', 'application/yaml', PROTOBUF];

/** Server-side apply's media type. */
export const APPLY_PATCH = 'application/apply-patch+yaml';

/** The patch media types a resource accepts: custom resources have no strategic merge patch. */
export function patchTypesOf(type: ResourceType): string[] {
  return type.crdName
    ? ['application/json-patch+json', 'application/merge-patch+json', APPLY_PATCH]
    : [
        'application/json-patch+json',
        'application/merge-patch+json',
        'application/strategic-merge-patch+json',
        APPLY_PATCH,
      ];
}

/** The media type of a request, without parameters. */
export function mediaTypeOf(req: IncomingMessage): string {
  return String(req.headers['content-type'] ?? '')
    .split(';')[0]!
    .trim()
    .toLowerCase();
}

/** Parses YAML (or JSON, a subset) with kube-apiserver-like messages for bad input. */
export function parseYamlBody(text: string): any {
  if (text.trim() === '') throw badRequest('the body of the request was empty');
  try {
    return parseYaml(text, { version: '1.1', merge: false, uniqueKeys: false });
  } catch (err) {
    throw badRequest(`error converting YAML to JSON: ${(err as Error).message.split('\n')[0]}`);
  }
}

/**
 * Reads a create/update/delete body in any of {@link BODY_MEDIA_TYPES}; anything else is 415.
 * With `empty`, an empty body yields that value instead of a 400 (DELETE).
 */
export async function readObjectBody(req: IncomingMessage, empty?: object): Promise<any> {
  const mediaType = mediaTypeOf(req);
  if (mediaType !== '' && !BODY_MEDIA_TYPES.includes(mediaType)) throw unsupportedMediaType(BODY_MEDIA_TYPES);
  const raw = await readRawBody(req);
  if (empty && raw.toString('utf8').trim() === '') return empty;
  if (mediaType === PROTOBUF) return decodeObject(raw);
  if (mediaType === 'application/yaml') return parseYamlBody(raw.toString('utf8'));
  return parseJson(raw.toString('utf8'));
}

/** Whether the client prefers protobuf over JSON (client-go's `application/vnd.kubernetes.protobuf,application/json`). */
export function prefersProtobuf(accept: string | undefined): boolean {
  for (const part of String(accept ?? '').split(',')) {
    const mediaType = part.split(';')[0]!.trim().toLowerCase();
    if (mediaType === PROTOBUF) return true;
    if (mediaType === 'application/json' || mediaType === '*/*' || mediaType === 'application/*')
      return false;
  }
  return false;
}

/** Sends an object as protobuf when the client prefers it and the kind has a message, else as JSON. */
export function sendObject(
  res: ServerResponse,
  code: number,
  body: unknown,
  accept: string | undefined,
  rawJson?: string,
): void {
  const proto = prefersProtobuf(accept) && !res.headersSent ? encodeObject(body) : undefined;
  if (!proto) return sendJson(res, code, body, rawJson);
  res.writeHead(code, {
    'content-type': PROTOBUF,
    'content-length': proto.length,
    'cache-control': 'no-cache, private',
  });
  res.end(proto);
}
