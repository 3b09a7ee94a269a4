import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { trimmedNodes } from '../src/informers.ts';
import { addNode, eventually, startEnv } from './env.ts';

/**
 * `--sync-period`: controller-runtime's SyncPeriod — every informer of the manager hands each
 * cached object to its controllers again that often, though nothing changed.
 */
describe('kruise-manager --sync-period', () => {
  let env: Awaited<ReturnType<typeof startEnv>>;
  beforeAll(async () => {
    env = await startEnv(['--sync-period=1s']);
  });
  afterAll(async () => {
    await env?.app.stop();
    await env?.cp.stop();
  });

  it('re-delivers every cached object to the controllers every period', async () => {
    await addNode(env.client, 'quiet');
    const nodes = trimmedNodes(env.app.manager);
    await eventually(() => nodes.get('quiet'));
    const resyncs: string[] = [];
    nodes.addEventHandler({
      update: (old, now) => {
        if (old === now) resyncs.push(now.metadata!.name!);
      },
    });
    await eventually(() => resyncs.filter((n) => n === 'quiet').length >= 2, { timeoutMs: 10_000 });
    expect(new Set(resyncs)).toEqual(new Set(['quiet']));
  });
});
