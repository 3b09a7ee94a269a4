import { describe, expect, it } from 'vitest';
import { isStatefulSetLike, parseCustomWorkloadWhitelist } from '../../src/workload/configuration/index.ts';

describe('PPS_Watch_Custom_Workload_WhiteList', () => {
  it('reads upstream’s format, keys in any case as Go’s encoding/json does', () => {
    expect(
      parseCustomWorkloadWhitelist(
        '{"workloads":[{"Group":"game.io","Version":"v1","Kind":"GameSet"},{"group":"x.io","kind":"Pool","extra":1}]}',
      ),
    ).toEqual({
      workloads: [
        { group: 'game.io', version: 'v1', kind: 'GameSet' },
        { group: 'x.io', version: '', kind: 'Pool' },
      ],
    });
  });

  it('is empty without a value, for null and without workloads', () => {
    for (const value of [undefined, 'null', '{}', '{"workloads":null}'])
      expect(parseCustomWorkloadWhitelist(value)).toEqual({ workloads: [] });
  });

  it('refuses what Go refuses to decode', () => {
    expect(() => parseCustomWorkloadWhitelist('{"workloads":')).toThrow();
    expect(() => parseCustomWorkloadWhitelist('[]')).toThrow('cannot unmarshal array');
    expect(() => parseCustomWorkloadWhitelist('{"workloads":{}}')).toThrow('cannot unmarshal object');
    expect(() => parseCustomWorkloadWhitelist('{"workloads":[{"Kind":3}]}')).toThrow(
      'cannot unmarshal number into Go struct field CustomWorkloadWhiteList.workloads.Kind of type string',
    );
  });

  it('makes a whitelisted group and kind StatefulSet-like at any version, and StatefulSets always', () => {
    const whitelist = parseCustomWorkloadWhitelist('{"workloads":[{"Group":"game.io","Kind":"GameSet"}]}');
    expect(isStatefulSetLike(whitelist, 'game.io/v1', 'GameSet')).toBe(true);
    expect(isStatefulSetLike(whitelist, 'game.io/v2alpha1', 'GameSet')).toBe(true);
    expect(isStatefulSetLike(whitelist, 'other.io/v1', 'GameSet')).toBe(false);
    expect(isStatefulSetLike(whitelist, 'game.io/v1', 'Lobby')).toBe(false);
    expect(isStatefulSetLike({ workloads: [] }, 'apps/v1', 'StatefulSet')).toBe(true);
    expect(isStatefulSetLike({ workloads: [] }, 'apps.kruise.io/v1alpha1', 'StatefulSet')).toBe(true);
    expect(isStatefulSetLike({ workloads: [] }, 'apps/v1', 'Deployment')).toBe(false);
    expect(isStatefulSetLike(whitelist, 'game.io/v1/x', 'GameSet')).toBe(false);
  });
});
