import { ConflictError, ForbiddenError, type KubeObject, NotFoundError } from '@kruise/runtime';
import { describe, expect, it } from 'vitest';
import type { Pub } from '../../src/restart-in-place/pub-limits.ts';
import { type PubTakeClient, pubAdmission, takePubDisruption } from '../../src/restart-in-place/pub-take.ts';

const NOW = () => new Date('2026-11-24T15:53:07.123Z');

function budget(rv: string, status: Partial<NonNullable<Pub['status']>> = {}, annotations = {}): Pub {
  return {
    metadata: { name: 'web-pub', namespace: 'ns', resourceVersion: rv, generation: 1, annotations },
    spec: { maxUnavailable: 1 },
    status: {
      observedGeneration: 1,
      totalReplicas: 3,
      desiredAvailable: 2,
      currentAvailable: 3,
      unavailableAllowed: 1,
      ...status,
    },
  } as Pub;
}

/**
 * A client that answers GETs with the budgets of `reads` in turn (the last one repeats) and each
 * status PUT with the next of `writes` (an error to throw, or undefined: stored).
 */
function fakeClient(reads: Pub[], writes: (Error | undefined)[] = []) {
  const puts: Pub[] = [];
  let r = 0;
  let w = 0;
  const client: PubTakeClient = {
    get: (async () => structuredClone(reads[Math.min(r++, reads.length - 1)])) as PubTakeClient['get'],
    updateStatus: (async (_ref: unknown, obj: Pub) => {
      puts.push(structuredClone(obj));
      const err = writes[w++];
      if (err) throw err;
      return obj;
    }) as PubTakeClient['updateStatus'],
  };
  return { client, puts, gets: () => r };
}

const conflict = () =>
  new ConflictError(409, { reason: 'Conflict', message: 'the object has been modified' });

describe('takePubDisruption', () => {
  it("records the pod in unavailablePods and lowers unavailableAllowed, guarded by the budget's resourceVersion", async () => {
    const { client, puts } = fakeClient([budget('7')]);
    expect(await takePubDisruption(client, 'ns', 'web-pub', 'web-a', NOW)).toEqual({ kind: 'taken' });
    expect(puts).toHaveLength(1);
    expect(puts[0]!.metadata!.resourceVersion).toBe('7');
    expect(puts[0]!.status).toMatchObject({
      unavailableAllowed: 0,
      unavailablePods: { 'web-a': '2026-11-24T15:53:07.123Z' },
      disruptedPods: {},
    });
  });

  it('re-reads on a conflict and decides again on the newer budget', async () => {
    // the newer budget had its last disruption taken by someone else meanwhile
    const taken = budget('8', { unavailableAllowed: 0, disruptedPods: { 'web-x': '2026-11-24T15:53:00Z' } });
    const refused = fakeClient([budget('7'), taken], [conflict()]);
    expect(await takePubDisruption(refused.client, 'ns', 'web-pub', 'web-a', NOW)).toEqual({
      kind: 'refused',
      cause: 'pub unavailable allowed is negative',
    });
    expect(refused.puts).toHaveLength(1);
    // or the newer budget allows it: the second write carries the newer resourceVersion
    const retried = fakeClient([budget('7'), budget('9', { unavailableAllowed: 2 })], [conflict()]);
    expect(await takePubDisruption(retried.client, 'ns', 'web-pub', 'web-a', NOW)).toEqual({ kind: 'taken' });
    expect(retried.puts.map((p) => [p.metadata!.resourceVersion, p.status!.unavailableAllowed])).toEqual([
      ['7', 0],
      ['9', 1],
    ]);
    // or the pod got recorded meanwhile: nothing more to take
    const recorded = budget('9', { unavailablePods: { 'web-a': '2026-11-24T15:53:05Z' } });
    const skip = fakeClient([budget('7'), recorded], [conflict()]);
    expect(await takePubDisruption(skip.client, 'ns', 'web-pub', 'web-a', NOW)).toEqual({ kind: 'free' });
    expect(skip.puts).toHaveLength(1);
  });

  it('gives up for now after as many conflicts as tries', async () => {
    const { client, puts, gets } = fakeClient([budget('7')], Array.from({ length: 9 }, conflict));
    expect(await takePubDisruption(client, 'ns', 'web-pub', 'web-a', NOW, 5)).toEqual({ kind: 'conflicts' });
    expect([puts.length, gets()]).toEqual([5, 5]);
  });

  it('takes nothing when the pod is recorded, UPDATE is not protected, none must stay available, or the budget is gone', async () => {
    const cases: Pub[] = [
      budget('1', { disruptedPods: { 'web-a': '2026-11-24T15:53:00Z' } }),
      budget('1', {}, { 'kruise.io/pub-protect-operations': 'DELETE,EVICT' }),
      budget('1', { desiredAvailable: 0, unavailableAllowed: 0 }),
    ];
    for (const b of cases) {
      const { client, puts } = fakeClient([b]);
      expect(await takePubDisruption(client, 'ns', 'web-pub', 'web-a', NOW)).toEqual({ kind: 'free' });
      expect(puts).toEqual([]);
    }
    const gone: PubTakeClient = {
      get: async () => {
        throw new NotFoundError(404, { message: 'not found' });
      },
      updateStatus: async () => {
        throw new Error('no write expected');
      },
    };
    expect(await takePubDisruption(gone, 'ns', 'web-pub', 'web-a', NOW)).toEqual({ kind: 'free' });
  });
});

describe('pubAdmission', () => {
  const ready = (name: string, labels: Record<string, string> = {}): KubeObject => ({
    metadata: { name, labels },
    status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] },
  });

  it('holds a pod back while its budget refuses, naming the budget', async () => {
    const { client } = fakeClient([budget('1', { unavailableAllowed: 0 })]);
    const gate = pubAdmission(client, 'ns', { now: NOW, out: () => {} });
    expect(await gate.admit(ready('web-a'), 'web-pub')).toEqual({
      start: false,
      blockedBy: 'podunavailablebudget/web-pub',
    });
    expect(await gate.admit(ready('web-b'), undefined)).toEqual({ start: true });
  });

  it('takes nothing for a pod that is not Running and Ready or is labelled unavailable', async () => {
    const { client, gets } = fakeClient([budget('1', { unavailableAllowed: 0 })]);
    const gate = pubAdmission(client, 'ns', { now: NOW, out: () => {} });
    const notReady = { ...ready('web-a'), status: { phase: 'Running', conditions: [] } };
    expect(await gate.admit(notReady, 'web-pub')).toEqual({ start: true });
    expect(await gate.admit(ready('web-b', { 'unavailable-pod.kruise.io/x': 'y' }), 'web-pub')).toEqual({
      start: true,
    });
    expect(gets()).toBe(0);
  });

  it('warns once when the status may not be updated, and then starts pods on the read-only limits', async () => {
    const forbidden = new ForbiddenError(403, {
      message:
        'podunavailablebudgets.policy.kruise.io "web-pub" is forbidden: User "dev" cannot update resource "podunavailablebudgets/status"',
    });
    const { client, puts } = fakeClient([budget('1')], [forbidden]);
    const lines: string[] = [];
    const gate = pubAdmission(client, 'ns', { now: NOW, out: (l) => lines.push(l) });
    expect(await gate.admit(ready('web-a'), 'web-pub')).toEqual({ start: true });
    expect(await gate.admit(ready('web-b'), 'web-pub')).toEqual({ start: true });
    expect(puts).toHaveLength(1);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^warning: cannot update podunavailablebudgets\/status \(policy\.kruise\.io\) in namespace ns/,
    );
  });
});
