import type { KubeObject } from '../kube/client.ts';

/** The `request` of a ConversionReview (the same at apiextensions.k8s.io v1 and v1beta1). */
export interface ConversionRequest {
  uid: string;
  /** `group/version` every object is wanted at. */
  desiredAPIVersion: string;
  objects: KubeObject[];
}

/** The `response` of a ConversionReview: every object converted, or a failure and why. */
export interface ConversionResponse {
  uid: string;
  convertedObjects: KubeObject[];
  result: { status: 'Success' } | { status: 'Failure'; message: string };
}

/** Handles one conversion request (the server adds `uid`). */
export type ConversionHandler = (
  request: ConversionRequest,
) => Omit<ConversionResponse, 'uid'> | Promise<Omit<ConversionResponse, 'uid'>>;

/**
 * Turns an object of one version into another. It is handed its own copy, which it may change
 * and return; `apiVersion` and `kind` are set by the registry afterwards.
 */
export type ConvertFunc = (obj: KubeObject) => KubeObject;

/**
 * How one kind converts: its hub (the storage version) and, for every other version it is served
 * at, the way to the hub and back. A conversion between two non-hub versions goes through the hub.
 */
export interface KindConversion {
  group: string;
  kind: string;
  hub: string;
  spokes: Record<string, { toHub: ConvertFunc; fromHub: ConvertFunc }>;
}

/** Why an object could not be converted (the message goes into the review's Failure result). */
export class ConversionError extends Error {}

/** `group/version` → [group, version]; a bare `v1` is the core group's. */
function splitAPIVersion(apiVersion: string): [string, string] {
  const slash = apiVersion.lastIndexOf('/');
  return slash < 0 ? ['', apiVersion] : [apiVersion.slice(0, slash), apiVersion.slice(slash + 1)];
}

/**
 * The converters of every multi-version kind, keyed by group and kind, as controller-runtime's
 * scheme holds the hub and spoke types: a kind registers once, and the conversion webhook serves
 * it at every version it names.
 */
export class ConverterRegistry {
  private readonly kinds = new Map<string, KindConversion>();

  /** Adds a kind's conversion (once per group and kind). */
  register(conversion: KindConversion): this {
    const key = `${conversion.kind}.${conversion.group}`;
    if (this.kinds.has(key)) throw new Error(`a conversion for ${key} is already registered`);
    if (conversion.hub in conversion.spokes)
      throw new Error(`${key}: the hub ${conversion.hub} is not a spoke`);
    this.kinds.set(key, conversion);
    return this;
  }

  /** The registered kinds, as `Kind.group`. */
  registered(): string[] {
    return [...this.kinds.keys()];
  }

  /** One object at `desiredAPIVersion`; throws a {@link ConversionError} saying what is wrong. */
  convert(obj: KubeObject, desiredAPIVersion: string): KubeObject {
    if (obj === null || typeof obj !== 'object' || Array.isArray(obj))
      throw new ConversionError('the object is not a JSON object');
    const { apiVersion, kind } = obj;
    if (typeof apiVersion !== 'string' || !apiVersion || typeof kind !== 'string' || !kind)
      throw new ConversionError('the object has no apiVersion or kind');
    const [group, version] = splitAPIVersion(apiVersion);
    const [desiredGroup, desiredVersion] = splitAPIVersion(desiredAPIVersion);
    const key = `${kind}.${group}`;
    const conversion = this.kinds.get(key);
    if (!conversion) throw new ConversionError(`no conversion is registered for kind ${key}`);
    if (desiredGroup !== group)
      throw new ConversionError(`cannot convert ${key} to ${desiredAPIVersion}: another API group`);
    const served = [conversion.hub, ...Object.keys(conversion.spokes)].sort();
    for (const v of [version, desiredVersion])
      if (!served.includes(v))
        throw new ConversionError(`${key} is not served at ${v}; it is served at ${served.join(', ')}`);
    let out = structuredClone(obj);
    if (version !== desiredVersion) {
      if (version !== conversion.hub) out = conversion.spokes[version]!.toHub(out);
      if (desiredVersion !== conversion.hub) out = conversion.spokes[desiredVersion]!.fromHub(out);
    }
    return { ...out, apiVersion: desiredAPIVersion, kind };
  }

  /** Answers a ConversionReview's request: every object converted, or a Failure naming the first that was not. */
  review(request: ConversionRequest): Omit<ConversionResponse, 'uid'> {
    const failure = (message: string) => ({
      convertedObjects: [],
      result: { status: 'Failure' as const, message },
    });
    if (typeof request.desiredAPIVersion !== 'string' || !request.desiredAPIVersion)
      return failure('the request has no desiredAPIVersion');
    if (!Array.isArray(request.objects)) return failure('the request has no list of objects');
    const convertedObjects: KubeObject[] = [];
    for (const [i, obj] of request.objects.entries()) {
      try {
        convertedObjects.push(this.convert(obj, request.desiredAPIVersion));
      } catch (err) {
        const why =
          err instanceof ConversionError
            ? err.message
            : `internal error: ${err instanceof Error ? err.message : String(err)}`;
        return failure(`object ${i}: ${why}`);
      }
    }
    return { convertedObjects, result: { status: 'Success' } };
  }
}
