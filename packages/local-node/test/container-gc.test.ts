import type { Container__Output } from '@kruise/cri/generated/runtime/v1/Container';
import { describe, expect, it } from 'vitest';
import { deadContainersToRemove } from '../src/node/container-gc.ts';

const c = (id: string, uid: string, name: string, state: string, createdAt: number) =>
  ({
    id,
    state,
    createdAt: String(createdAt),
    labels: { 'io.kubernetes.pod.uid': uid, 'io.kubernetes.container.name': name },
  }) as unknown as Container__Output;

describe("deadContainersToRemove (kubelet's container GC, one dead container kept per container)", () => {
  const ours = (uid: string) => uid !== 'other-node';
  it.each([
    [
      'a running container and its previous instance: nothing',
      [c('r', 'p', 'app', 'CONTAINER_RUNNING', 3), c('d1', 'p', 'app', 'CONTAINER_EXITED', 2)],
      [],
    ],
    [
      'two dead instances beside the running one: the older goes',
      [
        c('r', 'p', 'app', 'CONTAINER_RUNNING', 3),
        c('d2', 'p', 'app', 'CONTAINER_EXITED', 2),
        c('d1', 'p', 'app', 'CONTAINER_EXITED', 1),
      ],
      ['d1'],
    ],
    [
      'a crash-looping container: the newest dead one stays, whatever the listing order',
      [
        c('d1', 'p', 'app', 'CONTAINER_EXITED', 1),
        c('d3', 'p', 'app', 'CONTAINER_EXITED', 3),
        c('d2', 'p', 'app', 'CONTAINER_EXITED', 2),
      ],
      ['d2', 'd1'],
    ],
    [
      'counted per container name and per pod',
      [
        c('a1', 'p', 'app', 'CONTAINER_EXITED', 1),
        c('s1', 'p', 'sidecar', 'CONTAINER_EXITED', 1),
        c('q1', 'q', 'app', 'CONTAINER_EXITED', 1),
      ],
      [],
    ],
    [
      'a restart created but not started yet does not push out the instance it replaces',
      [c('n', 'p', 'app', 'CONTAINER_CREATED', 3), c('d2', 'p', 'app', 'CONTAINER_EXITED', 2)],
      [],
    ],
    [
      'an older instance created but never started counts as dead',
      [
        c('d2', 'p', 'app', 'CONTAINER_EXITED', 3),
        c('n', 'p', 'app', 'CONTAINER_CREATED', 2),
        c('d1', 'p', 'app', 'CONTAINER_EXITED', 1),
      ],
      ['n', 'd1'],
    ],
    [
      "another node's pods and containers without kubelet's labels are left alone",
      [
        c('o2', 'other-node', 'app', 'CONTAINER_EXITED', 2),
        c('o1', 'other-node', 'app', 'CONTAINER_EXITED', 1),
        { id: 'x', state: 'CONTAINER_EXITED', createdAt: '1', labels: {} } as unknown as Container__Output,
      ],
      [],
    ],
  ])('%s', (_what, containers, removed) => {
    expect(deadContainersToRemove(containers, ours)).toEqual(removed);
  });
});
