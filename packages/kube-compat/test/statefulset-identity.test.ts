import { describe, expect, it } from 'vitest';
import { claimOwnersForPolicy } from '../src/statefulset-claim-retention.ts';
import {
  claimsFor,
  identityMatches,
  missingClaims,
  podName,
  updateIdentity,
  updateStorage,
} from '../src/statefulset-identity.ts';

const set = {
  metadata: { name: 'web', namespace: 'ns', uid: 'set-uid' },
  spec: {
    selector: { matchLabels: { app: 'web' } },
    volumeClaimTemplates: [{ metadata: { name: 'data', labels: { tier: 'db' } } }],
    persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Delete', whenScaled: 'Delete' },
  },
};

describe('StatefulSet identity', () => {
  it('names pods and claims `<set>-<n>` and `<claim>-<set>-<n>`, claims labelled with the selector', () => {
    expect(podName(set, 4)).toBe('web-4');
    const claim = claimsFor(set, 4).get('data')!;
    expect(claim.metadata).toEqual({
      name: 'data-web-4',
      namespace: 'ns',
      labels: { tier: 'db', app: 'web' },
    });
  });

  it('gives a pod its identity labels and its claim volumes, the other volumes after them', () => {
    const pod: { metadata: { name: string }; spec: { volumes: { name: string }[] } } = {
      metadata: { name: 'web-2' },
      spec: { volumes: [{ name: 'cache' }, { name: 'data' }] },
    };
    expect(identityMatches(set, pod)).toBe(false);
    expect(missingClaims(set, pod)).toEqual(['data']);
    updateIdentity(set, pod, true);
    updateStorage(set, pod);
    expect(pod.metadata).toEqual({
      name: 'web-2',
      namespace: 'ns',
      labels: { 'statefulset.kubernetes.io/pod-name': 'web-2', 'apps.kubernetes.io/pod-index': '2' },
    });
    expect(pod.spec.volumes).toEqual([
      { name: 'data', persistentVolumeClaim: { claimName: 'data-web-2' } },
      { name: 'cache' },
    ]);
    expect(identityMatches(set, pod)).toBe(true);
  });

  it('hands a claim to the set, or to its scaled-down pod, under Delete/Delete', () => {
    const pod = { metadata: { name: 'web-2', uid: 'pod-uid' } };
    const claim = { metadata: { name: 'data-web-2' } };
    expect(claimOwnersForPolicy(claim, set, pod, false, 'apps/v1')).toEqual([
      { apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'web', uid: 'set-uid' },
    ]);
    expect(claimOwnersForPolicy(claim, set, pod, true, 'apps/v1')).toEqual([
      { apiVersion: 'v1', kind: 'Pod', name: 'web-2', uid: 'pod-uid' },
    ]);
  });
});
