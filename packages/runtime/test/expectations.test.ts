import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import {
  createLogger,
  Metrics,
  ResourceVersionExpectations,
  resourceVersionReached,
  ScaleExpectations,
  UpdateExpectations,
} from '../src/index.ts';

/** A clock the test moves, a logger whose lines it reads, and the metrics the drops are counted in. */
function harness(timeoutMs = 1000) {
  let now = 1_000_000;
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk, _enc, done) {
      lines.push(JSON.parse(String(chunk)));
      done();
    },
  });
  const metrics = new Metrics();
  const options = {
    controller: 'cloneset',
    timeoutMs,
    logger: createLogger({ name: 'test', level: 'info', destination: destination as never }),
    timeouts: metrics.expectationsTimeout,
    now: () => now,
  };
  const timeoutsCounted = async () => {
    const text = await metrics.expose();
    const m = /kruise_manager_expectations_timeout_total\{controller="cloneset"\} (\d+)/.exec(text);
    return m ? Number(m[1]) : 0;
  };
  return { options, lines, timeoutsCounted, advance: (ms: number) => (now += ms) };
}

describe('ScaleExpectations', () => {
  it('waits for every creation and deletion by name, then lets the owner act', () => {
    const { options } = harness();
    const e = new ScaleExpectations(options);
    expect(e.satisfied('ns/cs')).toBe(true);
    e.expectCreation('ns/cs', 'cs-a');
    e.expectCreation('ns/cs', 'cs-b');
    e.expectDeletion('ns/cs', 'cs-old');
    const check = e.check('ns/cs');
    expect(check).toMatchObject({
      satisfied: false,
      pending: { creations: 2, deletions: 1, creating: ['cs-a', 'cs-b'], deleting: ['cs-old'] },
    });
    expect([...e.awaitedCreations('ns/cs')].sort()).toEqual(['cs-a', 'cs-b']);
    e.creationObserved('ns/cs', 'cs-a');
    e.creationObserved('ns/cs', 'someone-elses');
    expect([...e.awaitedCreations('ns/cs')]).toEqual(['cs-b']);
    e.deletionObserved('ns/cs', 'cs-old');
    expect(e.satisfied('ns/cs')).toBe(false);
    e.creationObserved('ns/cs', 'cs-b');
    expect(e.satisfied('ns/cs')).toBe(true);
    expect(e.size).toBe(0);
  });

  it('counts creations whose names it does not know (generateName), as client-go does', () => {
    const { options } = harness();
    const e = new ScaleExpectations(options);
    e.expectCreations('ns/job', 2);
    e.creationObserved('ns/job', 'job-x1');
    expect(e.satisfied('ns/job')).toBe(false);
    e.creationObserved('ns/job');
    expect(e.satisfied('ns/job')).toBe(true);
    e.expectDeletions('ns/job', 1);
    e.deletionObserved('ns/other');
    expect(e.satisfied('ns/job')).toBe(false);
    e.delete('ns/job');
    expect(e.satisfied('ns/job')).toBe(true);
  });

  it('drops an expectation unmet past the timeout with a log line and a count, and says when to retry before', async () => {
    const { options, lines, timeoutsCounted, advance } = harness(1000);
    const e = new ScaleExpectations(options);
    e.expectCreation('ns/cs', 'cs-a');
    advance(400);
    expect(e.check('ns/cs')).toMatchObject({ satisfied: false, retryAfterMs: 600 });
    e.expectCreation('ns/cs', 'cs-b');
    advance(700);
    expect(e.check('ns/cs')).toMatchObject({ satisfied: false, retryAfterMs: 300 });
    expect(await timeoutsCounted()).toBe(0);
    advance(300);
    expect(e.check('ns/cs').satisfied).toBe(true);
    expect(await timeoutsCounted()).toBe(1);
    expect(lines).toContainEqual(
      expect.objectContaining({
        msg: 'expectation timed out, dropped',
        controller: 'cloneset',
        kind: 'scale',
        key: 'ns/cs',
        creating: ['cs-a', 'cs-b'],
      }),
    );
    expect(e.satisfied('ns/cs')).toBe(true);
    expect(await timeoutsCounted()).toBe(1);
    e.expectCreation('ns/cs', 'cs-c');
    advance(1000);
    expect(e.awaitedCreations('ns/cs').size).toBe(0);
    expect(await timeoutsCounted()).toBe(2);
  });
});

describe('ResourceVersionExpectations', () => {
  const pod = (rv: string) => ({ metadata: { uid: 'u1', namespace: 'ns', name: 'p', resourceVersion: rv } });

  it('holds the controller back until the cache shows its write, comparing versions as numbers', () => {
    const { options } = harness();
    const e = new ResourceVersionExpectations(options);
    expect(e.isSatisfied(pod('9'))).toBe(true);
    e.expect(pod('10'));
    expect(e.isSatisfied(pod('9'))).toBe(false);
    e.observe(pod('9'));
    expect(e.isSatisfied(pod('9'))).toBe(false);
    expect(e.isSatisfied(pod('10'))).toBe(true);
    e.expect(pod('12'));
    e.expect(pod('11'));
    expect(e.isSatisfied(pod('11'))).toBe(false);
    e.observe(pod('100'));
    expect(e.size).toBe(0);
    expect(e.isSatisfied(pod('2'))).toBe(true);
  });

  it('drops a write the cache never showed after the timeout, logged and counted', async () => {
    const { options, lines, timeoutsCounted, advance } = harness(500);
    const e = new ResourceVersionExpectations(options);
    e.expect(pod('20'));
    advance(499);
    expect(e.check(pod('19'))).toMatchObject({ satisfied: false, retryAfterMs: 1 });
    advance(1);
    expect(e.isSatisfied(pod('19'))).toBe(true);
    expect(await timeoutsCounted()).toBe(1);
    expect(lines).toContainEqual(
      expect.objectContaining({ kind: 'resourceVersion', key: 'ns/p', resourceversion: '20', cached: '19' }),
    );
  });

  it('compares resourceVersions as upstream does', () => {
    expect(resourceVersionReached(undefined, '1')).toBe(true);
    expect(resourceVersionReached('99', '100')).toBe(true);
    expect(resourceVersionReached('100', '99')).toBe(false);
    expect(resourceVersionReached('not-a-number', '1')).toBe(true);
    expect(resourceVersionReached('5', 'garbage')).toBe(false);
  });
});

describe('UpdateExpectations', () => {
  type Labelled = { metadata?: { namespace?: string; name?: string; labels?: Record<string, string> } };
  const revisionOf = (o: Labelled) => o.metadata?.labels?.['controller-revision-hash'];
  const pod = (name: string, rev: string) => ({
    metadata: { namespace: 'ns', name, labels: { 'controller-revision-hash': rev } },
  });

  it('waits until each updated object shows the revision; a new revision starts over', () => {
    const { options } = harness();
    const e = new UpdateExpectations<Labelled>(options, revisionOf);
    e.expectUpdated('ns/cs', 'v2', pod('a', 'v1'));
    e.expectUpdated('ns/cs', 'v2', pod('b', 'v1'));
    expect(e.check('ns/cs', 'v2')).toMatchObject({
      satisfied: false,
      pending: { updating: ['ns/a', 'ns/b'] },
    });
    expect(e.check('ns/cs', 'v3').satisfied).toBe(true);
    e.observeUpdated('ns/cs', 'v2', pod('a', 'v1'));
    e.observeUpdated('ns/cs', 'v2', pod('a', 'v2'));
    expect(e.check('ns/cs', 'v2').satisfied).toBe(false);
    e.observeUpdated('ns/cs', 'v2', pod('b', 'v2'));
    expect(e.check('ns/cs', 'v2').satisfied).toBe(true);
    e.expectUpdated('ns/cs', 'v2', pod('c', 'v1'));
    e.expectUpdated('ns/cs', 'v3', pod('d', 'v2'));
    expect(e.check('ns/cs', 'v3')).toMatchObject({ pending: { updating: ['ns/d'] } });
  });

  it('drops an update the cache never showed after the timeout', async () => {
    const { options, timeoutsCounted, advance } = harness(100);
    const e = new UpdateExpectations<Labelled>(options, revisionOf);
    e.expectUpdated('ns/cs', 'v2', pod('a', 'v1'));
    advance(100);
    expect(e.check('ns/cs', 'v2').satisfied).toBe(true);
    expect(await timeoutsCounted()).toBe(1);
  });
});
