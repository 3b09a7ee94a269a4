import { canonicalQuantity, quantitiesEqual } from '@kruise/kube-compat';
import { hashRevision, revisionName, revisionPayload } from '@kruise/kube-compat/controller-revision';
import type { ControllerRevision } from 'kubernetes-types/apps/v1.js';
import { describe, expect, it } from 'vitest';
import {
  hasRevision,
  newRevision,
  type RevisionParent,
  type RevisionStore,
  resolveRevisions,
  revisionsToTruncate,
  volumeClaimTemplatesHash,
  writeRevisionHash,
} from '../../src/workload/revision/index.ts';

const parent = (image: string, extra: Partial<RevisionParent> = {}): RevisionParent => ({
  apiVersion: 'apps.kruise.io/v1alpha1',
  kind: 'CloneSet',
  metadata: { name: 'sample', namespace: 'default', uid: 'uid-1', annotations: { team: 'a' } },
  template: {
    metadata: { labels: { app: 'sample' } },
    spec: { containers: [{ name: 'main', image }] },
  },
  ...extra,
});

/** A store over a map, answering AlreadyExists as the API does. */
function memoryStore(initial: ControllerRevision[] = []) {
  const items = new Map(initial.map((r) => [r.metadata!.name!, structuredClone(r)]));
  const store: RevisionStore & { items: typeof items } = {
    items,
    async create(r) {
      if (items.has(r.metadata!.name!)) throw Object.assign(new Error('exists'), { alreadyExists: true });
      items.set(r.metadata!.name!, structuredClone(r));
      return structuredClone(r);
    },
    async get(name) {
      return structuredClone(items.get(name));
    },
    async update(r) {
      items.set(r.metadata!.name!, structuredClone(r));
      return structuredClone(r);
    },
    async delete(r) {
      items.delete(r.metadata!.name!);
    },
  };
  return store;
}

describe('revision payload', () => {
  it('is the template as Go encodes it: sorted keys, creationTimestamp null, empty resources, $patch replace', () => {
    expect(revisionPayload(parent('nginx:1.25').template)).toBe(
      '{"spec":{"template":{"$patch":"replace","metadata":{"creationTimestamp":null,"labels":{"app":"sample"}},"spec":{"containers":[{"image":"nginx:1.25","name":"main","resources":{}}]}}}}',
    );
  });

  it('drops fields Go does not know and empty omitempty fields, keeps required zero values', () => {
    const payload = revisionPayload({
      metadata: { labels: {}, annotations: { a: '<b>&' } } as any,
      spec: {
        containers: [
          {
            name: 'c',
            image: 'i',
            ports: [{ containerPort: 80 }],
            env: [{ name: 'E', valueFrom: { fieldRef: { fieldPath: "metadata.labels['x']" } } }],
            resources: { requests: { cpu: '1.5', memory: '1024Mi' } },
            unknownField: 1,
          } as any,
        ],
        readinessGates: [],
        terminationGracePeriodSeconds: 30,
      },
    });
    expect(payload).toBe(
      '{"spec":{"template":{"$patch":"replace","metadata":{"annotations":{"a":"\\u003cb\\u003e\\u0026"},"creationTimestamp":null},"spec":{"containers":[{"env":[{"name":"E","valueFrom":{"fieldRef":{"fieldPath":"metadata.labels[\'x\']"}}}],"image":"i","name":"c","ports":[{"containerPort":80}],"resources":{"requests":{"cpu":"1500m","memory":"1Gi"}}}],"terminationGracePeriodSeconds":30}}}}',
    );
  });

  it('hashes with 32-bit FNV-1 plus the collision count, safe-encoded', () => {
    // FNV-1 of "a" is 0x050c5d7e = 84696446; "84696446" maps char by char into the safe alphabet.
    expect(hashRevision('a', undefined)).toBe('d8bfb88b');
    // No input leaves the FNV offset basis, 2166136261.
    expect(hashRevision('', undefined)).toBe('65bb57b6b5');
    expect(hashRevision('x', 0)).not.toBe(hashRevision('x', 1));
    expect(hashRevision('x', 0)).toBe(hashRevision('x0', undefined));
    expect(revisionName('a'.repeat(300), 'h')).toBe(`${'a'.repeat(223)}-h`);
  });

  it('hashes volumeClaimTemplates as upstream (its unit-test vectors)', () => {
    expect(volumeClaimTemplatesHash([])).toBe('');
    const pvc = (name: string, req: string, lim: string) => ({
      metadata: { name },
      spec: {
        accessModes: ['ReadWriteOnce'],
        resources: { requests: { storage: req }, limits: { storage: lim } },
      },
    });
    expect(volumeClaimTemplatesHash([pvc('pvc-1', '1Gi', '2Gi')])).toBe('1129974074');
    expect(volumeClaimTemplatesHash([pvc('pvc-2', '2Gi', '4Gi'), pvc('pvc-1', '1Gi', '2Gi')])).toBe(
      '510584408',
    );
  });
});

describe('quantities', () => {
  it.each([
    ['1.5', '1500m'],
    ['0.5', '500m'],
    ['2000', '2k'],
    ['1500', '1500'],
    ['1024Mi', '1Gi'],
    ['0.5Gi', '512Mi'],
    ['1536', '1536'],
    ['100Mi', '100Mi'],
    ['0.3Ki', '307200m'],
    ['1e3', '1e3'],
    ['0', '0'],
    ['0.0000000001', '1n'],
    ['-1.5', '-1500m'],
  ])('%s is written %s', (text, canonical) => {
    expect(canonicalQuantity(text)).toBe(canonical);
  });

  it('compares amounts across suffixes', () => {
    expect(quantitiesEqual('1Gi', '1024Mi')).toBe(true);
    expect(quantitiesEqual('1', '1000m')).toBe(true);
    expect(quantitiesEqual('1', '1001m')).toBe(false);
  });
});

describe('revision history', () => {
  it('creates the first revision named <cloneset>-<hash> with template labels, hash label and annotations', async () => {
    const store = memoryStore();
    const { current, update, collisionCount } = await resolveRevisions(store, parent('v1'), [], {});
    expect(update.metadata!.name).toBe(`sample-${hashRevision(revisionPayload(parent('v1').template), 0)}`);
    expect(update.metadata!.labels).toEqual({
      app: 'sample',
      'controller.kubernetes.io/hash': update.metadata!.name!.slice(7),
    });
    expect(update.metadata!.annotations).toEqual({
      team: 'a',
      'kruise.io/cloneset-volumeclaimtemplate-hash': '',
    });
    expect(update.revision).toBe(1);
    expect(current).toBe(update);
    expect(collisionCount).toBe(0);
    expect(store.items.size).toBe(1);
  });

  it('reuses the latest equal revision and rolls back to an older one by renumbering it', async () => {
    const store = memoryStore();
    const r1 = (await resolveRevisions(store, parent('v1'), [], {})).update;
    const r2 = (
      await resolveRevisions(store, parent('v2'), [...store.items.values()], {
        currentRevision: r1.metadata!.name!,
      })
    ).update;
    expect(r2.revision).toBe(2);
    const again = await resolveRevisions(store, parent('v2'), [...store.items.values()], {
      currentRevision: r1.metadata!.name!,
    });
    expect(again.update.metadata!.name).toBe(r2.metadata!.name);
    expect(again.current.metadata!.name).toBe(r1.metadata!.name);
    const back = await resolveRevisions(store, parent('v1'), [...store.items.values()], {
      currentRevision: r2.metadata!.name!,
    });
    expect(back.update.metadata!.name).toBe(r1.metadata!.name);
    expect(store.items.get(r1.metadata!.name!)!.revision).toBe(3);
    expect(store.items.size).toBe(2);
  });

  it('raises the collision count when the name is taken by different content', async () => {
    const squatter = newRevision(parent('v1'), 1, 0);
    squatter.data = { other: true };
    const store = memoryStore([squatter]);
    const got = await resolveRevisions(store, parent('v1'), [], {});
    expect(got.collisionCount).toBe(1);
    expect(got.update.metadata!.name).toBe(
      `sample-${hashRevision(revisionPayload(parent('v1').template), 1)}`,
    );
  });

  it('does not make a new revision for a volumeClaimTemplates-only change', async () => {
    const store = memoryStore();
    await resolveRevisions(store, parent('v1'), [], {});
    const vct = [{ metadata: { name: 'data' }, spec: { resources: { requests: { storage: '1Gi' } } } }];
    const got = await resolveRevisions(
      store,
      parent('v1', { volumeClaimTemplates: vct as any }),
      [...store.items.values()],
      {},
    );
    expect(store.items.size).toBe(1);
    expect(got.update.revision).toBe(1);
  });

  it('truncates the oldest revisions that are neither current, update nor used by a pod', () => {
    const revs = [1, 2, 3, 4, 5].map((n) => ({ ...newRevision(parent(`v${n}`), n, 0) }));
    const names = revs.map((r) => r.metadata!.name!);
    const doomed = revisionsToTruncate(
      revs,
      { current: names[0]!, update: names[4]! },
      (n) => n === names[1],
      1,
    );
    expect(doomed.map((r) => r.metadata!.name)).toEqual([names[2]]);
    expect(revisionsToTruncate(revs, { current: names[0]!, update: names[4]! }, () => false, 10)).toEqual([]);
  });

  it('matches pods by full revision name or short hash and writes both labels', () => {
    const labels: Record<string, string> = {};
    writeRevisionHash(labels, 'sample-abc12', false);
    expect(labels).toEqual({ 'controller-revision-hash': 'sample-abc12', 'pod-template-hash': 'abc12' });
    writeRevisionHash(labels, 'sample-abc12', true);
    expect(labels['controller-revision-hash']).toBe('abc12');
    expect(hasRevision(labels, 'sample-abc12')).toBe(true);
    expect(hasRevision({ 'controller-revision-hash': 'sample-zzz' }, 'sample-abc12')).toBe(false);
  });
});
