import type { Container, Pod } from 'kubernetes-types/core/v1.js';
import { describe, expect, it } from 'vitest';
import { appContainersDone, planInitContainers } from '../src/node/init-containers.ts';
import {
  computePodStatus,
  type KubeletPodStatus,
  type PodRuntimeView,
  type RuntimeContainer,
} from '../src/node/pod-status.ts';
import { TerminationOrdering } from '../src/node/termination-ordering.ts';

const sidecar = (name: string, extra: Partial<Container> = {}): Container => ({
  name,
  image: 'busybox',
  restartPolicy: 'Always',
  ...extra,
});
const plain = (name: string): Container => ({ name, image: 'busybox' });

let seq = 0;
const running = (name: string): RuntimeContainer => ({
  id: `${name}-${++seq}`,
  name,
  attempt: 0,
  state: 'CONTAINER_RUNNING',
  startedAt: '2026-01-01T00:00:00Z',
  exitCode: 0,
  reason: '',
  message: '',
  image: 'busybox',
  imageRef: 'busybox@sha256:1',
  hash: 1,
});
const exited = (name: string, exitCode = 0): RuntimeContainer => ({
  ...running(name),
  state: 'CONTAINER_EXITED',
  exitCode,
  finishedAt: '2026-01-01T00:00:01Z',
});

const lookup = (...cs: RuntimeContainer[]) => {
  const m = new Map(cs.map((c) => [c.name, c]));
  return (name: string) => m.get(name);
};
const startedAll = () => true;

describe('planInitContainers (kubelet computeInitContainerActions)', () => {
  const inits = [plain('setup'), sidecar('proxy', { startupProbe: {} }), plain('migrate'), sidecar('log')];

  it('starts the first init container of a new pod', () => {
    expect(planInitContainers(inits, lookup(), false, startedAll)).toEqual({ step: [0], initialized: false });
  });

  it('waits for a running regular init container, restarts a failed one, moves on once it exited 0', () => {
    expect(planInitContainers(inits, lookup(running('setup')), false, startedAll)).toEqual({
      step: [],
      initialized: false,
    });
    expect(planInitContainers(inits, lookup(exited('setup', 1)), false, startedAll)).toEqual({
      step: [0],
      initialized: false,
    });
    expect(planInitContainers(inits, lookup(exited('setup')), false, startedAll)).toEqual({
      step: [1],
      initialized: false,
    });
  });

  it('holds the next init container until a sidecar has started (its startup probe succeeded)', () => {
    const has = lookup(exited('setup'), running('proxy'));
    expect(planInitContainers(inits, has, false, () => false)).toEqual({ step: [1], initialized: false });
    expect(planInitContainers(inits, has, false, startedAll)).toEqual({ step: [1, 2], initialized: false });
  });

  it('is initialized once the last sidecar has started; sidecars are kept running, regular ones not rerun', () => {
    const all = lookup(exited('setup'), running('proxy'), exited('migrate'), running('log'));
    expect(planInitContainers(inits, all, false, startedAll)).toEqual({ step: [1, 3], initialized: true });
  });

  it('restarts an exited sidecar without holding back a later init container that already runs', () => {
    const has = lookup(exited('setup'), exited('proxy', 2), running('migrate'));
    expect(planInitContainers(inits, has, false, startedAll)).toEqual({ step: [1], initialized: false });
    const later = lookup(exited('setup'), exited('proxy', 2), exited('migrate'));
    expect(planInitContainers(inits, later, false, startedAll)).toEqual({ step: [1, 3], initialized: false });
  });

  it('once an app container has been created, the pod stays initialized while a sidecar restarts', () => {
    const has = lookup(exited('setup'), exited('proxy', 137), exited('migrate'), running('log'));
    expect(planInitContainers(inits, has, true, startedAll)).toEqual({ step: [1, 3], initialized: true });
    // even regular init containers whose instances were removed are not run again
    expect(planInitContainers(inits, lookup(running('log')), true, startedAll)).toEqual({
      step: [1, 3],
      initialized: true,
    });
  });
});

describe('appContainersDone', () => {
  const apps = [plain('a'), plain('b')];
  it('is true when no app container of a Never/OnFailure pod will run again', () => {
    expect(appContainersDone(apps, lookup(exited('a'), exited('b', 1)), 'Never')).toBe(true);
    expect(appContainersDone(apps, lookup(exited('a'), exited('b')), 'OnFailure')).toBe(true);
  });
  it('is false while one runs or will be restarted, and always for restartPolicy Always', () => {
    expect(appContainersDone(apps, lookup(exited('a'), running('b')), 'Never')).toBe(false);
    expect(appContainersDone(apps, lookup(exited('a'), exited('b', 1)), 'OnFailure')).toBe(false);
    expect(appContainersDone(apps, lookup(exited('a')), 'Never')).toBe(false);
    expect(appContainersDone(apps, lookup(exited('a'), exited('b')), 'Always')).toBe(false);
  });
});

function view(cs: RuntimeContainer[], ready: (id: string) => boolean = () => true): PodRuntimeView {
  return {
    latest: new Map(cs.map((c) => [c.name, c])),
    started: new Set(cs.map((c) => c.name)),
    waiting: new Map(),
    lastStates: new Map(),
    runtimeName: 'containerd',
    hostIP: '10.0.0.1',
    podIP: '10.88.1.2',
    probes: { started: () => true, ready },
  };
}
const pod = (restartPolicy: string, initContainers: Container[], containers: Container[]): Pod => ({
  metadata: { name: 'p', namespace: 'default', uid: 'u' },
  spec: { restartPolicy, initContainers, containers },
});
const cond = (s: KubeletPodStatus, type: string) => s.conditions.find((c) => c.type === type);

describe('computePodStatus with native sidecars', () => {
  it('reports a sidecar not started yet as incomplete, the pod Pending', () => {
    const p = pod('Always', [sidecar('proxy', { startupProbe: {} })], [plain('app')]);
    const proxy = running('proxy');
    const v = view([proxy]);
    v.probes = { started: () => false, ready: () => false };
    const s = computePodStatus(p, v);
    expect(s.phase).toBe('Pending');
    expect(s.initContainerStatuses?.[0]).toMatchObject({ name: 'proxy', started: false, ready: false });
    expect(cond(s, 'Initialized')).toMatchObject({
      status: 'False',
      reason: 'ContainersNotInitialized',
      message: 'containers with incomplete status: [proxy]',
    });
  });

  it('counts an unready sidecar against the pod’s readiness, named before the app containers', () => {
    const p = pod('Always', [plain('setup'), sidecar('proxy')], [plain('app')]);
    const proxy = running('proxy');
    const app = running('app');
    const s = computePodStatus(
      p,
      view([exited('setup'), proxy, app], (id) => id !== proxy.id && id !== app.id),
    );
    expect(s.phase).toBe('Running');
    expect(cond(s, 'Initialized')?.status).toBe('True');
    expect(s.initContainerStatuses).toMatchObject([
      { name: 'setup', ready: true },
      { name: 'proxy', started: true, ready: false, state: { running: {} } },
    ]);
    expect(cond(s, 'Ready')).toMatchObject({
      status: 'False',
      message: 'containers with unready status: [proxy app]',
    });
    const ok = computePodStatus(p, view([exited('setup'), proxy, app]));
    expect(cond(ok, 'Ready')?.status).toBe('True');
  });

  it('decides a job pod’s phase by its app containers once the sidecar is stopped', () => {
    const p = pod('Never', [sidecar('proxy')], [plain('work')]);
    // the work is done, the sidecar still runs: Running until the node stops it
    expect(computePodStatus(p, view([running('proxy'), exited('work')])).phase).toBe('Running');
    const done = computePodStatus(p, view([exited('proxy', 143), exited('work')]), true);
    expect(done.phase).toBe('Succeeded');
    expect(cond(done, 'Ready')).toMatchObject({ status: 'False', reason: 'PodCompleted' });
    expect(cond(done, 'Initialized')).toMatchObject({ status: 'True', reason: 'PodCompleted' });
    expect(computePodStatus(p, view([exited('proxy', 143), exited('work', 1)]), true).phase).toBe('Failed');
  });

  it('fails a restartPolicy Never pod whose regular init container failed', () => {
    const p = pod('Never', [plain('setup')], [plain('app')]);
    expect(computePodStatus(p, view([exited('setup', 1)])).phase).toBe('Failed');
    expect(
      computePodStatus(pod('OnFailure', [plain('setup')], [plain('app')]), view([exited('setup', 1)])).phase,
    ).toBe('Pending');
  });
});

describe('TerminationOrdering (kubelet terminationOrdering)', () => {
  it('lets the sidecars go only after the app containers, the later-declared sidecar first', async () => {
    const spec = {
      initContainers: [sidecar('first'), plain('setup'), sidecar('second')],
      containers: [plain('app')],
    };
    const o = new TerminationOrdering(spec, ['first', 'second', 'app']);
    const order: string[] = [];
    const first = o.waitForTurn('first', 10).then(() => order.push('first'));
    const second = o.waitForTurn('second', 10).then(() => order.push('second'));
    await o.waitForTurn('app', 10);
    await new Promise((r) => setTimeout(r, 10));
    expect(order).toEqual([]);
    o.terminated('app');
    await second;
    expect(order).toEqual(['second']);
    o.terminated('second');
    await first;
    expect(order).toEqual(['second', 'first']);
  });

  it('does not wait for containers that are not running, nor past the time given', async () => {
    const spec = { initContainers: [sidecar('first')], containers: [plain('app')] };
    await new TerminationOrdering(spec, ['first']).waitForTurn('first', 10);
    const t = Date.now();
    await new TerminationOrdering(spec, ['first', 'app']).waitForTurn('first', 0.05);
    expect(Date.now() - t).toBeGreaterThanOrEqual(45);
  });
});
