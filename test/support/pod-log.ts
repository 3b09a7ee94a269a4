import type { KubeClient } from '@kruise/runtime';

/** `kubectl logs`: GET pods/<name>/log through the API server; the text, or an Error `<code> <message>`. */
export async function podLog(
  client: KubeClient,
  name: string,
  query: Record<string, string | number | boolean>,
  namespace = 'default',
): Promise<string> {
  const response = await client.open('GET', `/api/v1/namespaces/${namespace}/pods/${name}/log`, { query });
  let text = '';
  for await (const chunk of response) text += chunk;
  if ((response.statusCode ?? 0) >= 400)
    throw new Error(`${response.statusCode} ${JSON.parse(text).message}`);
  return text;
}
