import type { IncomingMessage } from 'node:http';
import { ApiError, badRequest } from '../errors.ts';

/** Largest request body accepted (kube-apiserver's limit is 3 MiB). */
export const MAX_BODY_BYTES = 3 * 1024 * 1024;

/** Reads the whole body, refusing more than {@link MAX_BODY_BYTES}. */
export function readBody(req: IncomingMessage): Promise<string> {
  return readRawBody(req).then((b) => b.toString('utf8'));
}

/** Reads the whole body as bytes, refusing more than {@link MAX_BODY_BYTES}. */
export function readRawBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        reject(new ApiError(413, 'RequestEntityTooLarge', 'Request entity too large: limit is 3145728'));
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/** Parses JSON with kube-apiserver-like messages for bad input. */
export function parseJson(text: string): any {
  if (text.trim() === '') throw badRequest('the body of the request was empty');
  try {
    return JSON.parse(text);
  } catch (err) {
    throw badRequest(`the request body is not valid JSON: ${(err as Error).message}`);
  }
}
