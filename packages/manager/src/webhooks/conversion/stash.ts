import type { KubeObject } from '@kruise/runtime';

/**
 * Spec fields a hub version has and an older version lacks, carried in an annotation while an
 * object is read at the older version, so that writing it back there loses none of them.
 *
 * - `stash` (hub → older): moves the fields present in `spec` into the annotation, as JSON in the
 *   order of `fields`; with none present, it removes a stash the object may still carry.
 * - `restore` (older → hub): puts a stash's fields back into `spec` and removes the annotation.
 *   A value that is not a stash (not a JSON object of these fields) is left where it is.
 */
export interface SpecStash {
  stash(obj: KubeObject): KubeObject;
  restore(obj: KubeObject): KubeObject;
}

/** A {@link SpecStash} of `fields` under the annotation `key`. Both functions change their argument. */
export function specStash(key: string, fields: readonly string[]): SpecStash {
  const parse = (text: string | undefined): Record<string, unknown> | undefined => {
    if (text === undefined) return undefined;
    try {
      const value = JSON.parse(text);
      const keys = value && typeof value === 'object' && !Array.isArray(value) ? Object.keys(value) : [];
      return keys.length && keys.every((k) => fields.includes(k)) ? value : undefined;
    } catch {
      return undefined;
    }
  };
  const setAnnotation = (obj: KubeObject, value: string | undefined) => {
    const annotations = { ...obj.metadata?.annotations };
    if (value === undefined) delete annotations[key];
    else annotations[key] = value;
    const metadata = { ...obj.metadata, annotations };
    if (!Object.keys(annotations).length) delete metadata.annotations;
    obj.metadata = metadata;
  };
  return {
    stash(obj) {
      const spec = obj.spec ?? {};
      const kept = Object.fromEntries(fields.filter((f) => spec[f] !== undefined).map((f) => [f, spec[f]]));
      for (const f of fields) delete spec[f];
      if (Object.keys(kept).length) setAnnotation(obj, JSON.stringify(kept));
      else if (parse(obj.metadata?.annotations?.[key])) setAnnotation(obj, undefined);
      return obj;
    },
    restore(obj) {
      const kept = parse(obj.metadata?.annotations?.[key]);
      if (!kept) return obj;
      obj.spec = { ...obj.spec, ...kept };
      setAnnotation(obj, undefined);
      return obj;
    },
  };
}
