import { describe, expect, it } from 'vitest';
import { isScalarResourceName, nodeFitFailures, nodeUsage } from '../src/node-fit.ts';
import { amountMilliValue, amountValue, podRequests, type RequestsContainer } from '../src/pod-requests.ts';

const c = (requests: Record<string, string>, restartPolicy?: string): RequestsContainer => ({
  resources: { requests },
  ...(restartPolicy ? { restartPolicy } : {}),
});
const asText = (amounts: Map<string, bigint>) =>
  Object.fromEntries(
    [...amounts].map(([k, v]) => [k, k === 'cpu' ? `${amountMilliValue(v)}m` : String(amountValue(v))]),
  );

describe('podRequests (component-helpers resource.PodRequests)', () => {
  it('sums the app containers, exactly before rounding', () => {
    const spec = { containers: [c({ cpu: '100m', memory: '1Mi' }), c({ cpu: '0.25', memory: '1Ki' })] };
    expect(asText(podRequests(spec))).toEqual({ cpu: '350m', memory: String(1024 * 1024 + 1024) });
  });

  it('takes the largest init container when it needs more than the app containers', () => {
    const spec = {
      containers: [c({ cpu: '100m', memory: '10Mi' })],
      initContainers: [c({ cpu: '1', memory: '1Mi' }), c({ cpu: '200m', memory: '5Mi' })],
    };
    expect(asText(podRequests(spec))).toEqual({ cpu: '1000m', memory: String(10 * 1024 * 1024) });
  });

  it('adds sidecar (restartable) init containers to the app containers and to the init containers after them', () => {
    const spec = {
      containers: [c({ cpu: '100m' })],
      initContainers: [c({ cpu: '500m' }), c({ cpu: '200m' }, 'Always'), c({ cpu: '900m' })],
    };
    // app: 100m + sidecar 200m = 300m; the last init container runs beside the sidecar: 1100m.
    expect(asText(podRequests(spec))).toEqual({ cpu: '1100m' });
  });

  it('adds spec.overhead, counts a limit without a request, and keeps extended resources', () => {
    const spec = {
      containers: [
        { resources: { limits: { cpu: '2', 'example.com/gpu': '1' }, requests: { memory: '1Gi' } } },
      ],
      overhead: { cpu: '250m', memory: '128Mi' },
    };
    expect(asText(podRequests(spec))).toEqual({
      cpu: '2250m',
      memory: String(1024 ** 3 + 128 * 1024 ** 2),
      'example.com/gpu': '1',
    });
  });

  it('fills the requests a container lacks when asked (the scheduler scores with 100m and 200Mi)', () => {
    const spec = { containers: [c({ cpu: '300m' }), c({})] };
    expect(
      asText(podRequests(spec, { nonMissingContainerRequests: { cpu: '100m', memory: '200Mi' } })),
    ).toEqual({
      cpu: '400m',
      memory: String(400 * 1024 * 1024),
    });
  });
});

describe('isScalarResourceName', () => {
  it.each([
    ['example.com/gpu', true],
    ['hugepages-2Mi', true],
    ['kubernetes.io/batch-cpu', true],
    ['attachable-volumes-aws-ebs', true],
    ['cpu', false],
    ['pods', false],
    ['requests.example.com/gpu', false],
  ])('%s → %s', (name, expected) => expect(isScalarResourceName(name)).toBe(expected));
});

describe('nodeFitFailures (the BroadcastJob checkNodeFitness predicates)', () => {
  const node = (extra: Record<string, any> = {}) => ({
    metadata: { name: 'n1', labels: { zone: 'a' } },
    spec: { ...extra.spec },
    status: {
      allocatable: { cpu: '2', memory: '4Gi', pods: '3', 'ephemeral-storage': '10Gi', ...extra.alloc },
    },
  });
  const pod = (extra: Record<string, any> = {}) => ({
    containers: [c({ cpu: '500m', memory: '1Gi' })],
    ...extra,
  });

  it('fits a plain pod on a node with room', () => {
    expect(nodeFitFailures(pod(), node())).toEqual([]);
  });

  it('refuses another node named in nodeName', () => {
    expect(nodeFitFailures(pod({ nodeName: 'n2' }), node())).toEqual([
      "node(s) didn't match the requested node name",
    ]);
    expect(nodeFitFailures(pod({ nodeName: 'n1' }), node())).toEqual([]);
  });

  it('refuses a node the node selector or required affinity does not match', () => {
    expect(nodeFitFailures(pod({ nodeSelector: { zone: 'b' } }), node())).toEqual([
      "node(s) didn't match Pod's node affinity/selector",
    ]);
  });

  it('refuses an untolerated NoSchedule or NoExecute taint, naming it, and ignores PreferNoSchedule', () => {
    const taints = [
      { key: 'soft', value: 'x', effect: 'PreferNoSchedule' },
      { key: 'dedicated', value: 'gpu', effect: 'NoSchedule' },
    ];
    expect(nodeFitFailures(pod(), node({ spec: { taints } }))).toEqual([
      "node(s) had taint {dedicated: gpu}, that the pod didn't tolerate",
    ]);
    const tolerations = [{ key: 'dedicated', operator: 'Exists' }];
    expect(nodeFitFailures(pod({ tolerations }), node({ spec: { taints } }))).toEqual([]);
  });

  it('refuses a cordoned node unless the pod tolerates the unschedulable taint', () => {
    expect(nodeFitFailures(pod(), node({ spec: { unschedulable: true } }))).toEqual([
      'node(s) were unschedulable',
    ]);
    const tolerations = [
      { key: 'node.kubernetes.io/unschedulable', operator: 'Exists', effect: 'NoSchedule' },
    ];
    expect(nodeFitFailures(pod({ tolerations }), node({ spec: { unschedulable: true } }))).toEqual([]);
  });

  it('reports every resource shortfall against allocatable less what the pods already there request', () => {
    const big = {
      containers: [
        {
          resources: {
            requests: { cpu: '3', memory: '5Gi', 'ephemeral-storage': '20Gi', 'example.com/gpu': '1' },
          },
        },
      ],
    };
    expect(nodeFitFailures(big, node())).toEqual([
      'Insufficient cpu',
      'Insufficient memory',
      'Insufficient ephemeral-storage',
      'Insufficient example.com/gpu',
    ]);
    const usage = nodeUsage([pod(), pod(), pod()]);
    expect(nodeFitFailures(pod(), node(), usage)).toEqual(['Too many pods']);
    expect(nodeFitFailures({ containers: [c({ cpu: '501m' })] }, node(), usage)).toEqual([
      'Too many pods',
      'Insufficient cpu',
    ]);
    expect(nodeFitFailures(pod(), node({ alloc: { 'example.com/gpu': '1' } }), nodeUsage([pod()]))).toEqual(
      [],
    );
  });

  it('counts a node with no pods allocatable as full, as the scheduler does', () => {
    expect(nodeFitFailures({ containers: [c({})] }, { metadata: { name: 'n1' } })).toEqual(['Too many pods']);
  });
});
