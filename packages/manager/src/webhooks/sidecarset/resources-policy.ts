import type { ResourcesPolicy, SidecarContainer } from '@kruise/api';
import {
  type FieldError,
  type GoValue,
  goPointer,
  goString,
  goStruct,
  invalid,
  required,
} from '../field-errors.ts';
import { goRegexpError } from './go-regexp.ts';
import { resourceExpressionError } from './resource-expression.ts';

type Expr = NonNullable<ResourcesPolicy['resourcesExpr']>;
type ExprValues = NonNullable<Expr['limits']>;

/** `*v1beta1.ResourcesPolicy` as a field error prints it (`%#v` of the struct it points to). */
export function goResourcesPolicy(p: ResourcesPolicy): GoValue {
  return goStruct('v1beta1.ResourcesPolicy', [
    ['TargetContainersMode', goString(p.targetContainersMode)],
    ['TargetContainersNameRegex', goString(p.targetContainersNameRegex)],
    ['ResourcesExpr', goResourcesExpr(p.resourcesExpr ?? {}).text],
  ]);
}

function goResourcesExpr(e: Expr): GoValue {
  return goStruct('v1beta1.ResourcesExpr', [
    ['Limits', goPointer('v1beta1.ResourceExprLimits', !!e.limits)],
    ['Requests', goPointer('v1beta1.ResourceExprRequests', !!e.requests)],
  ]);
}

function exprValuesErrors(values: ExprValues, field: string): FieldError[] {
  const out: FieldError[] = [];
  for (const variable of ['cpu', 'memory'] as const) {
    const e = resourceExpressionError(values[variable] ?? '', variable);
    if (e) out.push(invalid(`${field}.${variable}`, values[variable], e));
  }
  return out;
}

/**
 * Upstream's validateResourcesPolicy: not beside resources, a targetContainersNameRegex that
 * compiles, and limits or requests whose cpu/memory expressions parse.
 */
export function resourcesPolicyErrors(container: SidecarContainer, field: string): FieldError[] {
  const policy = container.resourcesPolicy!;
  const resources = container.resources ?? {};
  if (Object.keys(resources.limits ?? {}).length || Object.keys(resources.requests ?? {}).length)
    return [
      invalid(
        field,
        goResourcesPolicy(policy),
        'resourcesPolicy and resources cannot be configured together',
      ),
    ];
  const out: FieldError[] = [];
  const regex = policy.targetContainersNameRegex ?? '';
  if (!regex) out.push(required(`${field}.targetContainersNameRegex`, 'invalid empty regex'));
  else {
    const e = goRegexpError(regex);
    if (e) out.push(invalid(`${field}.targetContainersNameRegex`, regex, `invalid regex pattern: ${e}`));
  }
  const expr = policy.resourcesExpr ?? {};
  const at = `${field}.resourcesExpr`;
  if (!expr.limits && !expr.requests)
    return [
      ...out,
      invalid(at, goResourcesExpr(expr), 'at least one of limits or requests must be configured'),
    ];
  if (expr.limits) out.push(...exprValuesErrors(expr.limits, `${at}.limits`));
  if (expr.requests) out.push(...exprValuesErrors(expr.requests, `${at}.requests`));
  return out;
}
