import { describe, expect, it } from 'vitest';
import { resourceExpressionError } from '../../src/webhooks/sidecarset/resource-expression.ts';

/** resourcesPolicy expressions as upstream's calculator accepts or refuses them (the variable set to 1). */
describe('resource expressions (resourcesPolicy.resourcesExpr)', () => {
  it.each([
    ['cpu * 50%', 'cpu'],
    ['cpu*0.5 + 100m', 'cpu'],
    ['max(cpu * 50%, 50m)', 'cpu'],
    ['max(memory, 1Gi) - 10Mi', 'memory'],
    ['(memory + 64Mi) / 2', 'memory'],
    ['-(-cpu)', 'cpu'],
    ['CPU * 2', 'cpu'],
    ['1e3 * cpu', 'cpu'],
    ['', 'cpu'],
  ] as const)('accepts %j for %s', (expr, variable) => {
    expect(resourceExpressionError(expr, variable)).toBeUndefined();
  });

  it.each([
    ['cpu *', 'cpu', 'parse error: syntax error at line 1, col 6'],
    ['cpu + + ', 'cpu', 'parse error: syntax error at line 1, col 8'],
    ['(cpu', 'cpu', 'parse error: syntax error at line 1, col 5'],
    ['cpu $ 2', 'cpu', 'parse error: syntax error at line 1, col 6'],
    ['memory', 'cpu', 'undefined variable: memory'],
    ['cpu / 0', 'cpu', 'division by zero'],
    ['100m / 1m', 'cpu', 'division by quantity'],
    ['1Gi * 1Mi', 'memory', 'multiplication of two quantities'],
    ['avg(cpu, 1)', 'cpu', 'unknown function: avg'],
    ['max(cpu)', 'cpu', 'max function requires exactly 2 arguments, got 1'],
    ['cpu - 2', 'cpu', 'calculation result is negative: -1'],
    ['100m - 1', 'cpu', 'calculation result is negative: -900m'],
    ['foo +', 'cpu', 'undefined variable: foo'],
    // memory is 1 here: the smaller is 1, less 10Mi
    ['min(memory, 1Gi) - 10Mi', 'memory', 'calculation result is negative: -10485759'],
    [
      '1e3m',
      'cpu',
      "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
    ],
  ] as const)('refuses %j for %s: %s', (expr, variable, message) => {
    expect(resourceExpressionError(expr, variable)).toBe(`invalid expression: ${message}`);
  });
});
