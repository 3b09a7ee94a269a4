import { type Static, type TSchema, Type } from '@sinclair/typebox';

/**
 * Schema building blocks that render as Kubernetes structural OpenAPI v3
 * (what `apiextensions.k8s.io/v1` accepts), while still giving TypeScript types.
 */

/** A 32-bit integer (`int32` in Go). */
export const Int32 = (description?: string) =>
  Type.Integer({ format: 'int32', ...(description ? { description } : {}) });

/** A 64-bit integer (`int64` in Go). */
export const Int64 = (description?: string) =>
  Type.Integer({ format: 'int64', ...(description ? { description } : {}) });

/** An RFC 3339 timestamp kept as a string end to end. */
export const Time = (description?: string) =>
  Type.String({ format: 'date-time', ...(description ? { description } : {}) });

/** A string with an optional description. */
export const Str = (description?: string) => Type.String(description ? { description } : {});

/** A boolean with an optional description. */
export const Bool = (description?: string) => Type.Boolean(description ? { description } : {});

/** `intstr.IntOrString`: an integer or a string such as `50%`. */
export const IntOrString = (description?: string) =>
  Type.Unsafe<number | string>({
    anyOf: [{ type: 'integer' }, { type: 'string' }],
    'x-kubernetes-int-or-string': true,
    ...(description ? { description } : {}),
  });

/** A Go `map[string]T`: an object with `additionalProperties` (structural schemas forbid patternProperties). */
export const MapOf = <T extends TSchema>(value: T, description?: string) =>
  Type.Unsafe<Record<string, Static<T>>>({
    type: 'object',
    additionalProperties: value,
    ...(description ? { description } : {}),
  });

/** `map[string]string`, as used for labels and annotations. */
export const StringMap = (description?: string) => MapOf(Type.String(), description);

/** A free-form object whose fields the API server keeps as they are. */
export const PreservedObject = (description?: string) =>
  Type.Unsafe<Record<string, unknown>>({
    type: 'object',
    'x-kubernetes-preserve-unknown-fields': true,
    ...(description ? { description } : {}),
  });
