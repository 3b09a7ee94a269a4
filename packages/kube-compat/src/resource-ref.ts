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
