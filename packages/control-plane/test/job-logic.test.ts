import { describe, expect, it } from 'vitest';
import { nextBackoffRecord, remainingBackoff } from '../src/controllers/job/backoff.ts';
import { matchFailurePolicy } from '../src/controllers/job/failure-policy.ts';
import { formatIndexes, parseIndexes, withIndexes } from '../src/controllers/job/indexes.ts';

/** The Job controller's pure parts: index ranges, pod re-creation back-off, podFailurePolicy. */
describe('Job index ranges', () => {
  it('writes indexes as upstream does: ranges, a pair as two numbers', () => {
    expect(formatIndexes(withIndexes([], [5, 0, 1, 2, 7, 8]))).toBe('0-2,5,7,8');
    expect(formatIndexes(withIndexes(parseIndexes('0,2', 10), [1]))).toBe('0-2');
  });

  it('reads ranges, dropping indexes at or past completions and malformed parts', () => {
    expect(formatIndexes(parseIndexes('1,3-6,x,9', 5))).toBe('1,3,4');
  });
});

describe('pod re-creation back-off', () => {
  const failedAt = (ms: number) => ({
    metadata: { creationTimestamp: new Date(0).toISOString() },
    status: { containerStatuses: [{ state: { terminated: { finishedAt: new Date(ms).toISOString() } } }] },
  });
  const backoff = { baseMs: 10_000, maxMs: 600_000 };

  it('doubles from the base for each failure since the last success, up to the cap', () => {
    const one = nextBackoffRecord(undefined, [], [failedAt(1_000)]);
    expect(remainingBackoff(one, backoff, 1_000)).toBe(10_000);
    const three = nextBackoffRecord(one, [], [failedAt(2_000), failedAt(3_000)]);
    expect(three.failuresAfterLastSuccess).toBe(3);
    expect(remainingBackoff(three, backoff, 13_000)).toBe(30_000);
    const many = { failuresAfterLastSuccess: 20, lastFailureTime: 0 };
    expect(remainingBackoff(many, backoff, 0)).toBe(600_000);
  });

  it('counts only the failures after the latest success', () => {
    const record = nextBackoffRecord(
      { failuresAfterLastSuccess: 4, lastFailureTime: 0 },
      [failedAt(5_000)],
      [failedAt(4_000), failedAt(6_000)],
    );
    expect(record).toEqual({ failuresAfterLastSuccess: 1, lastFailureTime: 6_000 });
    expect(nextBackoffRecord(record, [failedAt(7_000)], [])).toEqual({ failuresAfterLastSuccess: 0 });
  });
});

describe('podFailurePolicy', () => {
  const job = {
    spec: {
      podFailurePolicy: {
        rules: [
          { action: 'Count', onExitCodes: { containerName: 'side', operator: 'In', values: [3] } },
          { action: 'FailJob', onExitCodes: { operator: 'NotIn', values: [1, 2] } },
          { action: 'Ignore', onPodConditions: [{ type: 'DisruptionTarget', status: 'True' }] },
        ],
      },
    },
  };
  const pod = (code: number, conditions: object[] = []) => ({
    metadata: { namespace: 'ns', name: 'p' },
    status: {
      phase: 'Failed',
      conditions,
      containerStatuses: [{ name: 'main', state: { terminated: { exitCode: code } } }],
    },
  });

  it('fails the Job on the first matching rule, in upstream’s words', () => {
    expect(matchFailurePolicy(job, pod(9))).toEqual({
      counts: true,
      action: 'FailJob',
      failJobMessage: 'Container main for pod ns/p failed with exit code 9 matching FailJob rule at index 1',
    });
  });

  it('ignores a matching condition, counts what nothing matched, and never matches exit code 0', () => {
    expect(matchFailurePolicy(job, pod(1, [{ type: 'DisruptionTarget', status: 'True' }]))).toEqual({
      counts: false,
      action: 'Ignore',
    });
    expect(matchFailurePolicy(job, pod(2))).toEqual({ counts: true });
    expect(matchFailurePolicy(job, pod(0))).toEqual({ counts: true });
  });
});
