import { describe, expect, it } from 'vitest';
import { selectorsOverlap } from '../../src/webhooks/selector-overlap.ts';
import {
  defaulted,
  denial,
  fixedLookups,
  type Obj,
  request,
  sidecarSet,
  validator,
} from './admission-helpers.ts';

/**
 * SidecarSets that can select the same pods may not inject the same container name, a different
 * volume of the same name, or the same annotation when either overwrites it (upstream's
 * validateSidecarConflict, over its selector-overlap test).
 */

const stored = async (name: string, spec: Obj = {}) => defaulted(request('CREATE', sidecarSet(name, spec)));
const createReq = async (name: string, spec: Obj = {}) => request('CREATE', await stored(name, spec));

describe('selector overlap (upstream’s IsSelectorOverlapping)', () => {
  const eq = (k: string, v: string) => ({ matchLabels: { [k]: v } });
  const expr = (key: string, operator: string, values?: string[]) => ({
    matchExpressions: [{ key, operator, values }],
  });
  it.each<[string, Obj, Obj, boolean]>([
    ['a=b and a=c', eq('a', 'b'), eq('a', 'c'), false],
    ['a=b and a=b', eq('a', 'b'), eq('a', 'b'), true],
    ['a=b and c=d (different keys)', eq('a', 'b'), eq('c', 'd'), true],
    ['a=b,c=d and a=x,c=d', { matchLabels: { a: 'b', c: 'd' } }, { matchLabels: { a: 'x', c: 'd' } }, false],
    ['a in [b,c] and a=c', expr('a', 'In', ['b', 'c']), eq('a', 'c'), true],
    ['a in [b,c] and a in [d]', expr('a', 'In', ['b', 'c']), expr('a', 'In', ['d']), false],
    ['a in [b,c] and a notin [b,c]', expr('a', 'In', ['b', 'c']), expr('a', 'NotIn', ['b', 'c']), false],
    ['a in [b,c] and a notin [b]', expr('a', 'In', ['b', 'c']), expr('a', 'NotIn', ['b']), true],
    ['a exists and a=b', expr('a', 'Exists'), eq('a', 'b'), true],
    ['a exists and a doesnotexist', expr('a', 'Exists'), expr('a', 'DoesNotExist'), false],
    ['a=b and c exists', eq('a', 'b'), expr('c', 'Exists'), false],
  ])('%s → %s', (_what, a, b, overlap) => {
    expect(selectorsOverlap(a, b)).toBe(overlap);
    expect(selectorsOverlap(b, a)).toBe(overlap);
  });
});

describe('conflicts between SidecarSets (vsidecarset.kb.io)', () => {
  it('refuses a container name another SidecarSet on the same pods injects', async () => {
    const other = await stored('mesh', { containers: [{ name: 'sidecar', image: 'envoy:1' }] });
    const v = validator(fixedLookups({ sidecarSets: [other] }));
    expect(await denial(v, await createReq('logs'))).toEqual({
      code: 500,
      message: 'spec.containers: Invalid value: "sidecar": container sidecar already exist in mesh',
    });
  });

  it('refuses an init container name another SidecarSet injects as an init container', async () => {
    const init = { initContainers: [{ name: 'setup', image: 'busybox:1' }] };
    const v = validator(
      fixedLookups({
        sidecarSets: [await stored('mesh', { ...init, containers: [{ name: 'envoy', image: 'envoy:1' }] })],
      }),
    );
    expect(await denial(v, await createReq('logs', init))).toEqual({
      code: 500,
      message: 'spec.containers: Invalid value: "setup": container setup already exist in mesh',
    });
  });

  it('admits the same names when the selectors or namespaces cannot meet, and its own stored self', async () => {
    const self = await stored('logs');
    const others = [
      self,
      await stored('other-app', { selector: { matchLabels: { app: 'db' } } }),
      await stored('other-ns', { namespaceSelector: { matchLabels: { team: 'b' } } }),
    ];
    const v = validator(fixedLookups({ sidecarSets: others }));
    const r = await v(await createReq('logs', { namespaceSelector: { matchLabels: { team: 'a' } } }));
    expect(r.allowed).toBe(true);
  });

  it('admits an identical volume of the same name and refuses a different one', async () => {
    const volume = (path: string) => ({ volumes: [{ name: 'shared', hostPath: { path } }] });
    const containers = { containers: [{ name: 'envoy', image: 'envoy:1' }] };
    const v = validator(
      fixedLookups({ sidecarSets: [await stored('mesh', { ...containers, ...volume('/var/a') })] }),
    );
    expect((await v(await createReq('logs', volume('/var/a')))).allowed).toBe(true);
    expect(await denial(v, await createReq('logs', volume('/var/b')))).toEqual({
      code: 500,
      message: 'spec.volumes: Invalid value: "shared": volume shared is in conflict with sidecarset mesh',
    });
  });

  it.each<[string, string, boolean]>([
    ['Overwrite', 'Overwrite', false],
    ['Overwrite', 'MergePatchJson', false],
    ['MergePatchJson', 'Overwrite', false],
    ['MergePatchJson', 'MergePatchJson', true],
    ['Retain', 'Overwrite', true],
    ['Overwrite', 'Retain', true],
  ])('an annotation patched %s there and %s here: admitted %s', async (theirs, ours, admitted) => {
    const patch = (policy: string) => ({
      patchPodMetadata: [{ annotations: { 'x.io/y': '{}' }, patchPolicy: policy }],
    });
    const containers = { containers: [{ name: 'envoy', image: 'envoy:1' }] };
    const lookups = fixedLookups({
      sidecarSets: [await stored('mesh', { ...containers, ...patch(theirs) })],
      configuration: {
        data: { SidecarSet_PatchPodMetadata_WhiteList: '{"rules":[{"allowedAnnotationKeyExprs":[".*"]}]}' },
      },
    });
    const r = await validator(lookups)(await createReq('logs', patch(ours)));
    if (admitted) expect(r.allowed).toBe(true);
    else
      expect(r.status).toMatchObject({
        code: 500,
        message:
          'spec.patchPodMetadata: Invalid value: "x.io/y": annotation x.io/y is in conflict with sidecarset mesh',
      });
  });

  it('checks conflicts only once the SidecarSet itself is valid', async () => {
    const v = validator(fixedLookups({ sidecarSets: [await stored('mesh')] }));
    expect(await denial(v, await createReq('bad_name'))).toMatchObject({
      message: expect.stringMatching(/^metadata\.name: Invalid value: "bad_name"/),
    });
  });
});
