import { describe, expect, it } from 'vitest';
import { replaceNodeNameAffinity, targetNodeName } from '../src/daemon-pod-node.ts';
import { Backoff } from '../src/flowcontrol-backoff.ts';

const pinned = (values: string[], operator = 'In') => ({
  metadata: { namespace: 'ns', name: 'p' },
  spec: {
    affinity: {
      nodeAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: {
          nodeSelectorTerms: [
            { matchExpressions: [{ key: 'zone', operator: 'In', values: ['a'] }] },
            { matchFields: [{ key: 'metadata.name', operator, values }] },
          ],
        },
      },
    },
  },
});

describe('daemon pods and their node', () => {
  it('pins a node by name, replacing only the required terms', () => {
    const preferred = [{ weight: 1, preference: { matchExpressions: [{ key: 'x', operator: 'Exists' }] } }];
    const affinity = replaceNodeNameAffinity(
      {
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: {
            nodeSelectorTerms: [{ matchExpressions: [{ key: 'zone', operator: 'In', values: ['a'] }] }],
          },
          preferredDuringSchedulingIgnoredDuringExecution: preferred,
        },
        podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [] },
      },
      'node-1',
    );
    expect(affinity).toEqual({
      nodeAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: {
          nodeSelectorTerms: [
            { matchFields: [{ key: 'metadata.name', operator: 'In', values: ['node-1'] }] },
          ],
        },
        preferredDuringSchedulingIgnoredDuringExecution: preferred,
      },
      podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [] },
    });
    expect(targetNodeName({ spec: { affinity: replaceNodeNameAffinity(undefined, 'n2') } })).toBe('n2');
  });

  it('reads the node of a bound pod from spec.nodeName, of a pending one from its pin', () => {
    expect(targetNodeName({ spec: { nodeName: 'bound', affinity: pinned(['other']).spec.affinity } })).toBe(
      'bound',
    );
    expect(targetNodeName(pinned(['n1']))).toBe('n1');
  });

  it('says in upstream’s words why a pod names no node', () => {
    expect(() => targetNodeName({ metadata: { namespace: 'ns', name: 'p' }, spec: {} })).toThrow(
      'no spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution for pod ns/p',
    );
    expect(() => targetNodeName(pinned(['a', 'b']))).toThrow(
      "the matchFields value of 'metadata.name' is not unique for pod ns/p",
    );
    expect(() => targetNodeName(pinned(['a'], 'NotIn'))).toThrow('no node name found for pod ns/p');
  });
});

describe('flowcontrol Backoff', () => {
  it('doubles a key’s delay up to the maximum and forgets it after twice the maximum', () => {
    let now = 0;
    const b = new Backoff(1000, 4000, () => now);
    expect(b.inBackoffSinceUpdate('k', now)).toBe(false);
    b.next('k', now);
    expect(b.get('k')).toBe(1000);
    now = 999;
    expect(b.inBackoffSinceUpdate('k', now)).toBe(true);
    now = 1000;
    expect(b.inBackoffSinceUpdate('k', now)).toBe(false);
    b.next('k', now);
    b.next('k', now);
    b.next('k', now);
    expect(b.get('k')).toBe(4000);
    now += 8001;
    expect(b.inBackoffSinceUpdate('k', now)).toBe(false);
    b.next('k', now);
    expect(b.get('k')).toBe(1000);
    now += 8001;
    b.gc();
    expect(b.size).toBe(0);
  });
});
