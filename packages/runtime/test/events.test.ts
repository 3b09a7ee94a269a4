import type { ControlPlane } from '@kruise/control-plane';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EventRecorder, type KubeClient, Resources } from '../src/index.ts';
import { startEnv } from './env.ts';

let cp: ControlPlane;
let client: KubeClient;
beforeAll(async () => ({ cp, client } = await startEnv()));
afterAll(() => cp.stop());

describe('EventRecorder', () => {
  it('records events on the object and aggregates repeats into a count', async () => {
    const cm = await client.create(Resources.ConfigMap, {
      metadata: { name: 'target', namespace: 'default' },
    });
    const recorder = new EventRecorder(client, 'test-component');
    const obj = { ...cm, apiVersion: 'v1', kind: 'ConfigMap' };
    recorder.event(obj, 'Warning', 'PullImageFailed', 'Failed to pull image x');
    recorder.event(obj, 'Warning', 'PullImageFailed', 'Failed to pull image x');
    recorder.event(obj, 'Warning', 'PullImageFailed', 'Failed to pull image x');
    recorder.event(obj, 'Normal', 'PullImageSucceed', 'Image x is pulled');
    await recorder.flush();
    const events = (
      await client.list(Resources.Event, {
        namespace: 'default',
        fieldSelector: 'involvedObject.name=target',
      })
    ).items;
    expect(events.map((e) => [e.reason, e.count, e.type]).sort()).toEqual([
      ['PullImageFailed', 3, 'Warning'],
      ['PullImageSucceed', 1, 'Normal'],
    ]);
    expect(events[0]!.involvedObject).toMatchObject({
      kind: 'ConfigMap',
      name: 'target',
      uid: cm.metadata?.uid,
    });
    expect(events[0]!.source).toEqual({ component: 'test-component' });
  });

  it('limits a flood of events on one object', async () => {
    const cm = await client.create(Resources.ConfigMap, {
      metadata: { name: 'flood', namespace: 'default' },
    });
    const recorder = new EventRecorder(client, 'test-component');
    for (let i = 0; i < 40; i++) recorder.event({ ...cm, kind: 'ConfigMap' }, 'Normal', 'Tick', `tick ${i}`);
    await recorder.flush();
    const events = (
      await client.list(Resources.Event, { namespace: 'default', fieldSelector: 'involvedObject.name=flood' })
    ).items;
    expect(events).toHaveLength(25);
  });
});
