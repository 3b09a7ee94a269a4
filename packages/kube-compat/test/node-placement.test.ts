import { describe, expect, it } from 'vitest';
import { daemonTolerations, nodeShouldRunDaemonPod, nodeUpdateIgnorable } from '../src/daemon-placement.ts';
import {
  nodeSelectorTermMatches,
  preferredNodeAffinityScore,
  requiredNodeAffinityMatches,
} from '../src/node-affinity.ts';
import { addOrUpdateToleration, findUntoleratedTaint, NO_EXECUTE, toleratesTaint } from '../src/taints.ts';

const node = (name: string, labels: Record<string, string> = {}, taints: object[] = []) => ({
  metadata: { name, labels },
  spec: { taints: taints as { key: string; effect: string }[] },
});

describe('toleratesTaint (core/v1 Toleration.ToleratesTaint)', () => {
  const taint = { key: 'dedicated', value: 'gpu', effect: 'NoSchedule' };
  it.each([
    [
      'Equal, same key, value and effect',
      { key: 'dedicated', operator: 'Equal', value: 'gpu', effect: 'NoSchedule' },
      true,
    ],
    ['no operator means Equal', { key: 'dedicated', value: 'gpu' }, true],
    ['Equal, another value', { key: 'dedicated', operator: 'Equal', value: 'cpu' }, false],
    ['Exists, any value', { key: 'dedicated', operator: 'Exists' }, true],
    ['Exists with no key tolerates every taint', { operator: 'Exists' }, true],
    ['another effect', { key: 'dedicated', operator: 'Exists', effect: 'NoExecute' }, false],
    ['another key', { key: 'other', operator: 'Exists' }, false],
    ['an unknown operator tolerates nothing', { key: 'dedicated', operator: 'Gt', value: 'gpu' }, false],
    ['no key, Equal: the values are compared', { operator: 'Equal', value: 'gpu' }, true],
  ])('%s', (_what, toleration, expected) => {
    expect(toleratesTaint(toleration, taint)).toBe(expected);
  });

  it('finds the first taint the filter selects that nothing tolerates', () => {
    const taints = [
      { key: 'a', effect: 'NoSchedule' },
      { key: 'b', effect: 'NoExecute' },
      { key: 'c', effect: 'NoExecute' },
    ];
    expect(findUntoleratedTaint(taints, [{ key: 'b', operator: 'Exists' }], NO_EXECUTE)).toEqual(taints[2]);
    expect(findUntoleratedTaint(taints, [{ operator: 'Exists' }], NO_EXECUTE)).toBeUndefined();
  });

  it('replaces every same toleration in its place, or appends a new one', () => {
    const t = { key: 'k', operator: 'Exists', effect: 'NoExecute' };
    const withSeconds = { ...t, tolerationSeconds: 5 };
    expect(addOrUpdateToleration([{ key: 'x', operator: 'Exists' }, withSeconds], t)).toEqual([
      { key: 'x', operator: 'Exists' },
      t,
    ]);
    expect(addOrUpdateToleration(undefined, t)).toEqual([t]);
  });
});

describe('node selector terms and required node affinity (component-helpers nodeaffinity)', () => {
  const n = node('n1', { zone: 'a', cores: '8', gpu: 'true' });
  it.each([
    ['In', { key: 'zone', operator: 'In', values: ['a', 'b'] }, true],
    ['In, another value', { key: 'zone', operator: 'In', values: ['b'] }, false],
    ['NotIn an absent label', { key: 'rack', operator: 'NotIn', values: ['r1'] }, true],
    ['NotIn', { key: 'zone', operator: 'NotIn', values: ['a'] }, false],
    ['Exists', { key: 'gpu', operator: 'Exists' }, true],
    ['DoesNotExist', { key: 'gpu', operator: 'DoesNotExist' }, false],
    ['Gt', { key: 'cores', operator: 'Gt', values: ['4'] }, true],
    ['Lt', { key: 'cores', operator: 'Lt', values: ['4'] }, false],
    ['Gt of a label that is no integer', { key: 'zone', operator: 'Gt', values: ['1'] }, false],
    [
      'Gt with a value that is no integer (the term does not parse)',
      { key: 'cores', operator: 'Gt', values: ['4x'] },
      false,
    ],
    ['In with no values (does not parse)', { key: 'zone', operator: 'In', values: [] }, false],
    ['Exists with values (does not parse)', { key: 'zone', operator: 'Exists', values: ['a'] }, false],
    ['an unknown operator (does not parse)', { key: 'zone', operator: 'Equals', values: ['a'] }, false],
  ])('%s', (_what, req, expected) => {
    expect(nodeSelectorTermMatches({ matchExpressions: [req] }, n)).toBe(expected);
  });

  it('matches fields on metadata.name only, In or NotIn with exactly one value', () => {
    const field = (operator: string, values: string[], key = 'metadata.name') => ({
      matchFields: [{ key, operator, values }],
    });
    expect(nodeSelectorTermMatches(field('In', ['n1']), n)).toBe(true);
    expect(nodeSelectorTermMatches(field('NotIn', ['n1']), n)).toBe(false);
    expect(nodeSelectorTermMatches(field('In', ['n1', 'n2']), n)).toBe(false);
    expect(nodeSelectorTermMatches(field('Exists', []), n)).toBe(false);
    expect(nodeSelectorTermMatches(field('In', ['n1'], 'metadata.uid'), n)).toBe(false);
  });

  it('an empty term matches nothing; a term that does not parse is skipped, the others still count', () => {
    expect(nodeSelectorTermMatches({}, n)).toBe(false);
    const spec = (terms: object[]) => ({
      affinity: {
        nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: terms } },
      },
    });
    const broken = { matchExpressions: [{ key: 'zone', operator: 'Bad', values: ['a'] }] };
    const good = { matchExpressions: [{ key: 'zone', operator: 'In', values: ['a'] }] };
    expect(requiredNodeAffinityMatches(spec([broken, good]), n)).toBe(true);
    expect(requiredNodeAffinityMatches(spec([broken]), n)).toBe(false);
    expect(requiredNodeAffinityMatches(spec([]), n)).toBe(false);
    expect(requiredNodeAffinityMatches({}, n)).toBe(true);
  });

  it('nodeSelector must match as well as the required terms', () => {
    const terms = [{ matchExpressions: [{ key: 'zone', operator: 'In', values: ['a'] }] }];
    const affinity = {
      nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: terms } },
    };
    expect(requiredNodeAffinityMatches({ nodeSelector: { gpu: 'true' }, affinity }, n)).toBe(true);
    expect(requiredNodeAffinityMatches({ nodeSelector: { gpu: 'false' }, affinity }, n)).toBe(false);
  });

  it('scores the preferred terms the node satisfies by their weights', () => {
    const pref = (weight: number, zone: string) => ({
      weight,
      preference: { matchExpressions: [{ key: 'zone', operator: 'In', values: [zone] }] },
    });
    const spec = {
      affinity: {
        nodeAffinity: {
          preferredDuringSchedulingIgnoredDuringExecution: [pref(10, 'a'), pref(5, 'b'), pref(3, 'a')],
        },
      },
    };
    expect(preferredNodeAffinityScore(spec, n)).toBe(13);
  });
});

describe('daemon placement (nodeShouldRunDaemonPod)', () => {
  const template = { hostNetwork: false };
  it('adds the daemon tolerations, network-unavailable only for host-network pods, without duplicates', () => {
    const keys = (spec: object) => daemonTolerations(spec).map((t) => `${t.key}:${t.effect}`);
    expect(keys(template)).toEqual([
      'node.kubernetes.io/not-ready:NoExecute',
      'node.kubernetes.io/unreachable:NoExecute',
      'node.kubernetes.io/disk-pressure:NoSchedule',
      'node.kubernetes.io/memory-pressure:NoSchedule',
      'node.kubernetes.io/pid-pressure:NoSchedule',
      'node.kubernetes.io/unschedulable:NoSchedule',
    ]);
    expect(keys({ hostNetwork: true })).toContain('node.kubernetes.io/network-unavailable:NoSchedule');
    const own = { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute' };
    expect(daemonTolerations({ tolerations: [own] }).filter((t) => t.key === own.key)).toHaveLength(1);
  });

  it.each([
    ['a plain node', node('n1'), { shouldRun: true, shouldContinueRunning: true }],
    [
      'a cordoned node (its taint is tolerated)',
      node('n1', {}, [{ key: 'node.kubernetes.io/unschedulable', effect: 'NoSchedule' }]),
      { shouldRun: true, shouldContinueRunning: true },
    ],
    [
      'a node that is not ready',
      node('n1', {}, [{ key: 'node.kubernetes.io/not-ready', effect: 'NoExecute' }]),
      { shouldRun: true, shouldContinueRunning: true },
    ],
    [
      'a NoSchedule taint keeps a new pod off but lets a running one stay',
      node('n1', {}, [{ key: 'dedicated', value: 'db', effect: 'NoSchedule' }]),
      { shouldRun: false, shouldContinueRunning: true },
    ],
    [
      'a NoExecute taint evicts',
      node('n1', {}, [{ key: 'dedicated', value: 'db', effect: 'NoExecute' }]),
      { shouldRun: false, shouldContinueRunning: false },
    ],
    [
      'a PreferNoSchedule taint is no obstacle',
      node('n1', {}, [{ key: 'dedicated', effect: 'PreferNoSchedule' }]),
      { shouldRun: true, shouldContinueRunning: true },
    ],
  ])('%s', (_what, n, expected) => {
    expect(nodeShouldRunDaemonPod(n, template)).toEqual(expected);
  });

  it('a tolerated taint, another node named in the template, and node affinity', () => {
    const tainted = node('n1', { pool: 'db' }, [{ key: 'dedicated', value: 'db', effect: 'NoExecute' }]);
    const tolerating = { tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'db' }] };
    expect(nodeShouldRunDaemonPod(tainted, tolerating).shouldRun).toBe(true);
    expect(nodeShouldRunDaemonPod(node('n1'), { nodeName: 'n2' })).toEqual({
      shouldRun: false,
      shouldContinueRunning: false,
    });
    expect(nodeShouldRunDaemonPod(node('n1', { pool: 'web' }), { nodeSelector: { pool: 'db' } })).toEqual({
      shouldRun: false,
      shouldContinueRunning: false,
    });
  });
});

describe('node updates a daemon set controller ignores (shouldIgnoreNodeUpdate)', () => {
  const base = {
    metadata: { name: 'n1', resourceVersion: '1', labels: { a: 'b' } },
    spec: { taints: [] as { key: string; effect: string }[] },
    status: {
      conditions: [
        { type: 'Ready', status: 'True', lastHeartbeatTime: 't1' },
        { type: 'DiskPressure', status: 'False', lastHeartbeatTime: 't1' },
      ],
    },
  };
  it('a heartbeat (new resourceVersion and condition times, the same True conditions) is ignored', () => {
    const beat = structuredClone(base);
    beat.metadata.resourceVersion = '2';
    for (const c of beat.status.conditions) c.lastHeartbeatTime = 't2';
    expect(nodeUpdateIgnorable(base, beat)).toBe(true);
    const noTaints = structuredClone(base) as { spec?: object };
    delete noTaints.spec;
    expect(nodeUpdateIgnorable(base, noTaints)).toBe(true);
  });

  it('a label, a taint or a condition turning True is not', () => {
    const labelled = structuredClone(base);
    labelled.metadata.labels.a = 'c';
    expect(nodeUpdateIgnorable(base, labelled)).toBe(false);
    const tainted = structuredClone(base);
    tainted.spec.taints = [{ key: 'k', effect: 'NoSchedule' }];
    expect(nodeUpdateIgnorable(base, tainted)).toBe(false);
    const pressured = structuredClone(base);
    pressured.status.conditions[1]!.status = 'True';
    expect(nodeUpdateIgnorable(base, pressured)).toBe(false);
  });
});
