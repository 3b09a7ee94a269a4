import { formatQuantity } from '@kruise/kube-compat';
import { describe, expect, it } from 'vitest';
import { evaluateExpression } from '../../src/workload/sidecarset/expression.ts';
import { inject, sidecarSet, webPod } from './injection-helpers.ts';

const res = (limits: Record<string, string>, requests: Record<string, string>) => ({ limits, requests });
const container = (name: string, resources?: ReturnType<typeof res>) => ({
  name,
  image: 'x',
  ...(resources ? { resources } : {}),
});

/** The injected sidecar's resources under this policy for these pod containers. */
async function sized(
  policy: object,
  containers: ReturnType<typeof container>[],
  initContainers: object[] = [],
) {
  const set = sidecarSet('s', {
    containers: [{ name: 'sidecar', image: 'busybox', resourcesPolicy: policy as never }],
  });
  const { pod } = await inject(
    webPod(containers, { spec: { containers: [], initContainers: initContainers as never } }),
    [set],
  );
  return pod.spec!.containers.find((c) => c.name === 'sidecar')!.resources;
}

describe('SidecarSet resourcesPolicy (upstream’s sidecarset_resources_test cases)', () => {
  const two = [
    container('app-1', res({ cpu: '200m', memory: '200Mi' }, { cpu: '50m', memory: '100Mi' })),
    container('app-2', res({ cpu: '400m', memory: '400Mi' }, { cpu: '100m', memory: '100Mi' })),
  ];

  it.each([
    [
      'sum with percentages and constants',
      {
        targetContainersMode: 'sum',
        targetContainersNameRegex: '^app-.*$',
        resourcesExpr: {
          limits: { cpu: 'cpu*50%', memory: '200Mi' },
          requests: { cpu: 'cpu*50%', memory: '100Mi' },
        },
      },
      { limits: { cpu: '300m', memory: '200Mi' }, requests: { cpu: '75m', memory: '100Mi' } },
    ],
    [
      'max with nested max()',
      {
        targetContainersMode: 'max',
        targetContainersNameRegex: '.*',
        resourcesExpr: {
          limits: { cpu: 'max(cpu*50%, 50m)', memory: '200Mi' },
          requests: { cpu: 'max(cpu*50%, 50m)', memory: '100Mi' },
        },
      },
      { limits: { cpu: '200m', memory: '200Mi' }, requests: { cpu: '50m', memory: '100Mi' } },
    ],
    [
      'sum of memory in a binary unit',
      {
        targetContainersMode: 'sum',
        targetContainersNameRegex: '.*',
        resourcesExpr: {
          limits: { memory: 'memory*30%' },
          requests: { memory: 'memory/10 + 20Mi', cpu: '0.25' },
        },
      },
      { limits: { memory: '180Mi' }, requests: { memory: '40Mi', cpu: '250m' } },
    ],
  ])('%s', async (_, policy, expected) => {
    expect(await sized(policy, two)).toEqual(expected);
  });

  it('leaves a limit unset when any target container is unlimited, and counts a missing request as 0', async () => {
    const containers = [
      container('app-1', res({ memory: '200Mi' }, { cpu: '100m' })),
      container('app-2', res({ cpu: '1', memory: '400Mi' }, {})),
    ];
    const policy = {
      targetContainersMode: 'sum',
      targetContainersNameRegex: '.*',
      resourcesExpr: {
        limits: { cpu: 'cpu', memory: 'memory*30%' },
        requests: { cpu: 'cpu*30%', memory: 'memory + 1Mi' },
      },
    };
    expect(await sized(policy, containers)).toEqual({
      limits: { memory: '180Mi' },
      requests: { cpu: '30m', memory: '1Mi' },
    });
  });

  it('counts native-sidecar init containers of the pod, not plain ones nor other sidecars being injected', async () => {
    const inits = [
      { name: 'native', image: 'x', restartPolicy: 'Always', resources: res({ cpu: '1' }, {}) },
      { name: 'plain', image: 'x', resources: res({ cpu: '8' }, {}) },
    ];
    const policy = {
      targetContainersMode: 'max',
      targetContainersNameRegex: '.*',
      resourcesExpr: { limits: { cpu: 'cpu' } },
    };
    expect(await sized(policy, [container('app', res({ cpu: '500m' }, {}))], inits)).toEqual({
      limits: { cpu: '1' },
    });
  });

  it('refuses the pod when no app container matches, in upstream’s words', async () => {
    const policy = {
      targetContainersMode: 'sum',
      targetContainersNameRegex: '^nomatch$',
      resourcesExpr: { limits: { cpu: 'cpu' } },
    };
    await expect(sized(policy, two)).rejects.toThrow('no containers match the regex pattern "^nomatch$"');
  });

  it('refuses the pod when an expression fails, naming the expression', async () => {
    const policy = {
      targetContainersMode: 'sum',
      targetContainersNameRegex: '.*',
      resourcesExpr: { requests: { cpu: 'cpu/0' } },
    };
    await expect(sized(policy, two)).rejects.toThrow(
      'failed to evaluate CPU requests expression: failed to parse expression "cpu/0": division by zero',
    );
  });
});

describe('the resources expression language', () => {
  const cpu = { cpu: { quantity: { mantissa: 600n, scale: -3, format: 'DecimalSI' as const } } };
  it.each([
    ['cpu * 50%', '300m'],
    ['cpu - 100m', '500m'],
    ['(cpu + 400m) / 2', '500m'],
    ['-cpu + 1', '400m'],
    ['min(cpu, 100m)', '100m'],
    ['MAX(cpu, 1)', '1'],
    ['1Gi / 4', '256Mi'],
  ])('%s = %s', (expr, want) => {
    const v = evaluateExpression(expr, cpu);
    expect(v.quantity && formatQuantity(v.quantity)).toBe(want);
  });

  it.each([
    ['2 * 3', 6],
    ['1e3 / 4', 250],
    ['50% + .5', 1],
  ])('%s = %s (a number)', (expr, want) => {
    expect(evaluateExpression(expr, {}).number).toBe(want);
  });

  it.each([
    ['cpu * cpu', 'multiplication of two quantities'],
    ['1 / cpu', 'division by quantity'],
    ['memory', 'undefined variable: memory'],
    ['foo(1, 2)', 'unknown function: foo'],
    ['max(1)', 'max function requires exactly 2 arguments, got 1'],
    ['cpu *', 'parse error: syntax error at line 1, col 6'],
    ['cpu ) 1', 'parse error: syntax error at line 1, col 6'],
    ['100m - cpu', 'calculation result is negative: -500m'],
    ['1 - 2', 'calculation result is negative: -1'],
    ['0 - 2000000', 'calculation result is negative: -2e+06'],
  ])('%s fails: %s', (expr, message) => {
    expect(() => evaluateExpression(expr, cpu)).toThrow(message);
  });
});
