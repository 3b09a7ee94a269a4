import { describe, expect, it } from 'vitest';
import { advancedStatefulSetStatus, cloneSetStatus } from '../src/status.ts';

/** A CloneSet at generation 2 with this spec and status (observedGeneration 2 unless given). */
const cs = (spec: Record<string, unknown>, status: Record<string, unknown>) => ({
  metadata: { generation: 2 },
  spec: { replicas: 4, ...spec },
  status: { observedGeneration: 2, updateRevision: 'web-abc', ...status },
});

describe('rollout status of a CloneSet', () => {
  it('waits for the controller to observe the latest generation, whatever the strategy', () => {
    for (const type of ['ReCreate', 'InPlaceIfPossible', 'InPlaceOnly'])
      expect(
        cloneSetStatus(cs({ updateStrategy: { type } }, { observedGeneration: 1, updatedReplicas: 4 })),
      ).toEqual({ message: 'Waiting for CloneSet spec update to be observed...', done: false });
  });

  it('in place: waits for replicas − partition updated pods (a percentage rounds up), then for them to be ready', () => {
    const inPlace = (partition: unknown, status: Record<string, unknown>) =>
      cloneSetStatus(cs({ updateStrategy: { type: 'InPlaceIfPossible', partition } }, status));
    expect(inPlace(undefined, { updatedReplicas: 3 })).toEqual({
      message: 'Waiting for partitioned roll out to finish: 3 out of 4 new pods have been updated...',
      done: false,
    });
    expect(inPlace('30%', { updatedReplicas: 1 }).message).toBe(
      'Waiting for partitioned roll out to finish: 1 out of 2 new pods have been updated...',
    );
    expect(inPlace(1, { updatedReplicas: 3, updatedReadyReplicas: 2 })).toEqual({
      message: 'Waiting for 1 pods to be ready...',
      done: false,
    });
    expect(inPlace(1, { updatedReplicas: 3, updatedReadyReplicas: 3 })).toEqual({
      message: 'partitioned roll out complete: 3 new pods have been updated...',
      done: true,
    });
  });

  it('ReCreate: waits for the updated pods, then for every pod to be ready, and names the revision', () => {
    const recreate = (status: Record<string, unknown>) => cloneSetStatus(cs({}, status));
    expect(recreate({ updatedReplicas: 2, readyReplicas: 4 }).done).toBe(false);
    expect(recreate({ updatedReplicas: 4, readyReplicas: 3 })).toEqual({
      message: 'Waiting for 1 pods to be ready...',
      done: false,
    });
    expect(recreate({ updatedReplicas: 4, readyReplicas: 4, availableReplicas: 4 })).toEqual({
      message: 'CloneSet rolling update complete 4 pods at revision web-abc...',
      done: true,
    });
  });
});

/** An Advanced StatefulSet of 4 replicas at generation 2 with this update strategy and status. */
const asts = (updateStrategy: Record<string, unknown>, status: Record<string, unknown>) => ({
  metadata: { generation: 2 },
  spec: { replicas: 4, updateStrategy },
  status: { observedGeneration: 2, updateRevision: 'db-7f9', ...status },
});

describe('rollout status of an Advanced StatefulSet', () => {
  it('refuses OnDelete in kubectl’s words, and waits for the latest generation to be observed', () => {
    expect(() => advancedStatefulSetStatus(asts({ type: 'OnDelete' }, {}))).toThrow(
      'rollout status is only available for RollingUpdate strategy type',
    );
    expect(advancedStatefulSetStatus(asts({}, { observedGeneration: 1, updatedReplicas: 4 }))).toEqual({
      message: 'Waiting for Advanced StatefulSet spec update to be observed...',
      done: false,
    });
  });

  it('waits for replicas − partition updated pods (all of them without a partition), then for every pod to be ready', () => {
    const rolling = (partition: number | undefined, status: Record<string, unknown>) =>
      advancedStatefulSetStatus(
        asts({ type: 'RollingUpdate', rollingUpdate: partition === undefined ? {} : { partition } }, status),
      );
    expect(rolling(undefined, { updatedReplicas: 0, readyReplicas: 4 })).toEqual({
      message: 'Waiting for partitioned roll out to finish:0 out of 4 new pods has been updated...',
      done: false,
    });
    expect(rolling(3, { updatedReplicas: 0, readyReplicas: 4 }).message).toBe(
      'Waiting for partitioned roll out to finish:0 out of 1 new pods has been updated...',
    );
    expect(rolling(3, { updatedReplicas: 1, readyReplicas: 3 })).toEqual({
      message: 'Waiting for 1 pods to be ready...',
      done: false,
    });
    // a partition above replicas updates nothing: done once every pod is ready
    expect(rolling(9, { updatedReplicas: 0, readyReplicas: 4, availableReplicas: 4 }).done).toBe(true);
    expect(rolling(undefined, { updatedReplicas: 4, readyReplicas: 4, availableReplicas: 3 })).toEqual({
      message: 'Advanced StatefulSet rolling update complete 3 pods at revision db-7f9...',
      done: true,
    });
  });
});
