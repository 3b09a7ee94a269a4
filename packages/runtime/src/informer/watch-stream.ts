import { type KubeClient, readAll } from '../kube/client.ts';
import { errorFor } from '../kube/errors.ts';

/** One event of a watch. */
export interface WatchEvent {
  type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';
  object: any;
}

/**
 * Streams a watch: calls `onEvent` for every line and resolves when the server ends the stream.
 * Rejects on a non-200 answer (typed error), on a network error, and on a line that is not JSON
 * (client-node would skip it silently and lose the event; we restart instead).
 */
export async function streamWatch(
  client: KubeClient,
  path: string,
  query: Record<string, string | number | boolean | undefined>,
  onEvent: (event: WatchEvent) => void,
  signal: AbortSignal,
): Promise<void> {
  const response = await client.open('GET', path, { query: { ...query, watch: 'true' }, signal });
  if (response.statusCode !== 200) {
    const text = await readAll(response);
    let status: any = {};
    try {
      status = JSON.parse(text);
    } catch {
      status = { message: text.slice(0, 500) };
    }
    throw errorFor(response.statusCode ?? 0, status);
  }
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const chunk of response) {
    buffer += decoder.decode(chunk as Uint8Array, { stream: true });
    // The chunk's lines are read from an offset, and what is left kept once (not re-sliced per line).
    let start = 0;
    let newline = buffer.indexOf('\n');
    while (newline !== -1) {
      const line = buffer.slice(start, newline).trim();
      start = newline + 1;
      if (line) {
        let event: WatchEvent;
        try {
          event = JSON.parse(line);
        } catch {
          throw new Error(`watch ${path}: a line is not valid JSON`);
        }
        onEvent(event);
      }
      newline = buffer.indexOf('\n', start);
    }
    buffer = buffer.slice(start);
  }
}
