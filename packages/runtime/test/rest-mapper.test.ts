import { describe, expect, it } from 'vitest';
import { errorFor } from '../src/kube/errors.ts';
import { NoKindMatchError, RestMapper, splitApiVersion } from '../src/kube/rest-mapper.ts';

/** A discovery endpoint whose answers the test changes; it counts the requests. */
function discovery(initial: Record<string, unknown>) {
  const served: Record<string, unknown> = { ...initial };
  const paths: string[] = [];
  return {
    served,
    paths,
    client: {
      request: async <T>(_method: string, path: string): Promise<T> => {
        paths.push(path);
        const body = served[path];
        if (body instanceof Error) throw body;
        if (body === undefined) throw errorFor(404, { reason: 'NotFound', message: 'not found' });
        return body as T;
      },
    },
  };
}

const widgets = {
  resources: [
    { name: 'widgets', kind: 'Widget', namespaced: true },
    { name: 'widgets/scale', kind: 'Scale', namespaced: true },
    { name: 'gadgets', kind: 'Gadget', namespaced: false },
  ],
};

describe('RestMapper', () => {
  it('maps a kind to the resource discovery lists, and asks discovery once per group/version', async () => {
    const d = discovery({ '/apis/example.com/v1': widgets });
    const mapper = new RestMapper(d.client);
    expect(await mapper.resourceFor('example.com/v1', 'Widget')).toEqual({
      group: 'example.com',
      version: 'v1',
      plural: 'widgets',
      kind: 'Widget',
      namespaced: true,
    });
    expect((await mapper.resourceFor('example.com/v1', 'Gadget')).namespaced).toBe(false);
    expect(d.paths).toEqual(['/apis/example.com/v1']);
  });

  it('reads the core group at /api/v1', async () => {
    const d = discovery({ '/api/v1': { resources: [{ name: 'pods', kind: 'Pod', namespaced: true }] } });
    expect((await new RestMapper(d.client).resourceFor('v1', 'Pod')).plural).toBe('pods');
  });

  it('asks again for a kind it does not know (a CRD installed since)', async () => {
    const d = discovery({ '/apis/example.com/v1': { resources: [] } });
    const mapper = new RestMapper(d.client);
    await expect(mapper.resourceFor('example.com/v1', 'Widget')).rejects.toThrow(NoKindMatchError);
    d.served['/apis/example.com/v1'] = widgets;
    expect((await mapper.resourceFor('example.com/v1', 'Widget')).plural).toBe('widgets');
  });

  it('says no match for a group/version that is not served, or an apiVersion that is not one', async () => {
    const mapper = new RestMapper(discovery({}).client);
    await expect(mapper.resourceFor('nowhere.io/v1', 'Thing')).rejects.toThrow(
      'no matches for kind "Thing" in version "nowhere.io/v1"',
    );
    await expect(mapper.resourceFor('a/b/c', 'Thing')).rejects.toThrow(NoKindMatchError);
  });

  it('passes other discovery failures on and does not keep them', async () => {
    const d = discovery({ '/apis/example.com/v1': errorFor(503, { message: 'unavailable' }) });
    const mapper = new RestMapper(d.client);
    await expect(mapper.resourceFor('example.com/v1', 'Widget')).rejects.toThrow('unavailable');
    d.served['/apis/example.com/v1'] = widgets;
    expect((await mapper.resourceFor('example.com/v1', 'Widget')).plural).toBe('widgets');
  });

  it('splits apiVersions as apimachinery does', () => {
    expect(splitApiVersion('v1')).toEqual({ group: '', version: 'v1' });
    expect(splitApiVersion('apps.kruise.io/v1beta1')).toEqual({
      group: 'apps.kruise.io',
      version: 'v1beta1',
    });
    expect(splitApiVersion('a/b/c')).toBeUndefined();
  });
});
