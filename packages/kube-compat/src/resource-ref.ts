/** Where a Kubernetes resource is served (its group, version and plural), its kind, and its scope. */
export interface ResourceRef {
  /** The API group; `''` for the core group. */
  group: string;
  version: string;
  plural: string;
  namespaced: boolean;
  kind: string;
}

/** A {@link ResourceRef}, from the fields in the order an API path names them. */
export function resourceRef(
  group: string,
  version: string,
  plural: string,
  kind: string,
  namespaced: boolean,
): ResourceRef {
  return { group, version, plural, kind, namespaced };
}

/** An API group and version, as an object's `apiVersion` names them. */
export interface GroupVersion {
  group: string;
  version: string;
}

/**
 * apimachinery's schema.ParseGroupVersion: `''` and `'/'` are the empty group and version, `v1` the
 * core group, `apps/v1` a group and a version.
 * @throws Error `unexpected GroupVersion string: <text>` for more than one `/`.
 */
export function parseGroupVersion(text: string): GroupVersion {
  if (text === '' || text === '/') return { group: '', version: '' };
  const parts = text.split('/');
  if (parts.length > 2) throw new Error(`unexpected GroupVersion string: ${text}`);
  return parts.length === 1 ? { group: '', version: text } : { group: parts[0]!, version: parts[1]! };
}
