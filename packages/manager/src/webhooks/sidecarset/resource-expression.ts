import { evaluateExpression } from '../../workload/sidecarset/expression.ts';

/**
 * The error of a resource expression for `variable` (`cpu` or `memory`), worded as upstream's
 * validateResourceExpression (`invalid expression: …`), or undefined when it is valid. Like
 * upstream, the expression is evaluated by the same calculator injection uses, with the variable
 * set to the number 1.
 */
export function resourceExpressionError(expr: string, variable: 'cpu' | 'memory'): string | undefined {
  if (!expr) return undefined;
  try {
    evaluateExpression(expr, { [variable]: { number: 1 } });
    return undefined;
  } catch (err) {
    return `invalid expression: ${(err as Error).message}`;
  }
}
