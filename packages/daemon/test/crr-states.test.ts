import type { ContainerRecreateRequest } from '@kruise/api';
import { describe, expect, it } from 'vitest';
import { type NodeContainer, nextStates, pickRequest } from '../src/containerrecreate/states.ts';

const req = (
  name: string,
  phase: string | undefined,
  created: string,
  extra: Partial<ContainerRecreateRequest> = {},
) =>
  ({
    metadata: { name, creationTimestamp: created },
    spec: {
      podName: 'p',
      containers: [{ name: 'app', statusContext: { containerID: 'containerd://a0', restartCount: 0 } }],
    },
    ...(phase !== undefined ? { status: { phase } } : {}),
    ...extra,
  }) as ContainerRecreateRequest;

const onNode = (c: Partial<NodeContainer>) =>
  new Map([
    ['app', { containerID: 'containerd://a0', restartCount: 0, exited: false, startedAtMs: 0, ...c }],
  ]);

describe('which request of a pod runs', () => {
  it('takes Recreating before Pending before new, then the oldest; skips completed and deleting ones', () => {
    const { current, waiting } = pickRequest([
      req('new-old', undefined, '2026-01-01T00:00:00Z'),
      req('pending', 'Pending', '2026-01-01T00:00:05Z'),
      req('done', 'Completed', '2025-01-01T00:00:00Z'),
      req('recreating', 'Recreating', '2026-01-01T00:00:09Z'),
      req('deleting', undefined, '2025-01-01T00:00:00Z', {
        metadata: { name: 'deleting', deletionTimestamp: 'x' },
      } as never),
      req('new-young', undefined, '2026-01-01T00:00:07Z'),
    ]);
    expect(current?.metadata?.name).toBe('recreating');
    expect(waiting.map((w) => w.metadata?.name)).toEqual(['new-old', 'new-young']);
  });
});

describe('container states (upstream table, first rule wins)', () => {
  const r = req('x', 'Recreating', '2026-01-01T00:00:00Z');
  it('a container missing on the node is Pending with a message', () => {
    expect(nextStates(r, new Map(), new Set(), 0).states).toEqual([
      { name: 'app', phase: 'Pending', message: 'not found container on Node' },
    ]);
  });
  it('an exited container is Recreating (kubelet restarts it)', () => {
    expect(nextStates(r, onNode({ exited: true }), new Set(['app']), 0).states).toEqual([
      { name: 'app', phase: 'Recreating', isKilled: true },
    ]);
  });
  it('the same container, not replaced, is Pending (to be stopped)', () => {
    expect(nextStates(r, onNode({}), new Set(), 0).states[0]?.phase).toBe('Pending');
  });
  it('a replaced container is Recreating until the synced status shows it ready, then Succeeded', () => {
    const replaced = onNode({ containerID: 'containerd://a1', restartCount: 1 });
    expect(nextStates(r, replaced, new Set(), 0).states[0]?.phase).toBe('Recreating');
    const synced = {
      ...r,
      metadata: {
        ...r.metadata,
        annotations: {
          'crr.apps.kruise.io/sync-container-statuses': JSON.stringify([
            { name: 'app', ready: true, restartCount: 1, containerID: 'containerd://a1' },
          ]),
        },
      },
    };
    expect(nextStates(synced, replaced, new Set(), 0).states[0]?.phase).toBe('Succeeded');
    const unready = JSON.parse(JSON.stringify(synced));
    unready.metadata.annotations['crr.apps.kruise.io/sync-container-statuses'] = JSON.stringify([
      { name: 'app', ready: false, restartCount: 1, containerID: 'containerd://a1' },
    ]);
    expect(nextStates(unready, replaced, new Set(), 0).states[0]?.phase).toBe('Recreating');
  });
  it('minStartedSeconds holds Succeeded back and says when to look again', () => {
    const synced = {
      ...r,
      spec: { ...r.spec!, strategy: { minStartedSeconds: 5 } },
      metadata: {
        ...r.metadata,
        annotations: {
          'crr.apps.kruise.io/sync-container-statuses': JSON.stringify([
            { name: 'app', ready: true, restartCount: 1, containerID: 'containerd://a1' },
          ]),
        },
      },
    };
    const replaced = onNode({ containerID: 'containerd://a1', restartCount: 1, startedAtMs: 10_000 });
    const early = nextStates(synced, replaced, new Set(), 12_000);
    expect(early.states[0]?.phase).toBe('Recreating');
    expect(early.recheckAt).toBe(15_001);
    expect(nextStates(synced, replaced, new Set(), 15_001).states[0]?.phase).toBe('Succeeded');
  });
  it('forceRecreate keeps a replaced container Pending until this daemon has stopped it', () => {
    const forced = { ...r, spec: { ...r.spec!, strategy: { forceRecreate: true } } };
    const replaced = onNode({ containerID: 'containerd://a1', restartCount: 1 });
    expect(nextStates(forced, replaced, new Set(), 0).states[0]?.phase).toBe('Pending');
    expect(nextStates(forced, replaced, new Set(['app']), 0).states[0]).toEqual({
      name: 'app',
      phase: 'Recreating',
      isKilled: true,
    });
  });
  it('finished containers keep their state', () => {
    const done = {
      ...r,
      status: {
        phase: 'Recreating' as const,
        containerRecreateStates: [{ name: 'app', phase: 'Failed' as const, message: 'm' }],
      },
    };
    expect(nextStates(done, new Map(), new Set(), 0).states).toEqual([
      { name: 'app', phase: 'Failed', message: 'm' },
    ]);
  });
});
