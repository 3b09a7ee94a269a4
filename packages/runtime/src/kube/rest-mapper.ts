import type { KubeClient } from './client.ts';
import { isNotFound } from './errors.ts';
import type { ResourceRef } from './resources.ts';

/** No resource of the kind is served at the group/version (apimachinery's NoKindMatchError). */
export class NoKindMatchError extends Error {
  override readonly name = 'NoKindMatchError';
  readonly apiVersion: string;
  readonly kind: string;
  constructor(apiVersion: string, kind: string) {
    super(`no matches for kind "${kind}" in version "${apiVersion}"`);
    this.apiVersion = apiVersion;
    this.kind = kind;
  }
}

/** One entry of an APIResourceList (discovery). */
interface ApiResource {
  name: string;
  kind: string;
  namespaced: boolean;
}

/** Splits `group/version` (`v1`: the core group); undefined when it has more than one slash. */
export function splitApiVersion(apiVersion: string): { group: string; version: string } | undefined {
  const parts = apiVersion.split('/');
  if (parts.length === 1) return { group: '', version: parts[0]! };
  if (parts.length === 2) return { group: parts[0]!, version: parts[1]! };
  return undefined;
}

/**
 * Kind → resource through API discovery (controller-runtime's RESTMapper): the APIResourceList of a
 * group/version is fetched once and kept; a kind it does not list makes it fetch that list again
 * (a CRD may have been installed since) before it gives up.
 */
export class RestMapper {
  private readonly lists = new Map<string, Promise<ApiResource[]>>();
  private readonly client: Pick<KubeClient, 'request'>;

  constructor(client: Pick<KubeClient, 'request'>) {
    this.client = client;
  }

  /**
   * The resource serving `kind` at `apiVersion`.
   * @throws NoKindMatchError when discovery does not list it; the API's error when discovery fails.
   */
  async resourceFor(apiVersion: string, kind: string): Promise<ResourceRef> {
    const gv = splitApiVersion(apiVersion);
    if (!gv?.version) throw new NoKindMatchError(apiVersion, kind);
    const find = (list: ApiResource[]) => list.find((r) => r.kind === kind && !r.name.includes('/'));
    const cached = this.lists.get(apiVersion);
    let found = cached ? find(await cached) : undefined;
    if (!found) found = find(await this.fetch(apiVersion, gv.group, gv.version));
    if (!found) throw new NoKindMatchError(apiVersion, kind);
    return { ...gv, plural: found.name, kind, namespaced: found.namespaced };
  }

  /** Fetches (again) the resources of a group/version; none when it is not served. */
  private fetch(apiVersion: string, group: string, version: string): Promise<ApiResource[]> {
    const path = group ? `/apis/${group}/${version}` : `/api/${version}`;
    const list: Promise<ApiResource[]> = this.client.request<{ resources?: ApiResource[] }>('GET', path).then(
      (body) => body?.resources ?? [],
      (err) => {
        if (isNotFound(err)) return [];
        if (this.lists.get(apiVersion) === list) this.lists.delete(apiVersion);
        throw err;
      },
    );
    this.lists.set(apiVersion, list);
    return list;
  }
}
