import { describe, expect, it } from 'vitest';
import {
  hashRevision,
  podTemplateHash,
  revisionName,
  revisionPayload,
  sortRevisions,
} from '../src/controller-revision.ts';

const template = {
  metadata: { labels: { app: 'web' } },
  spec: { containers: [{ name: 'c', image: 'nginx' }] },
};

describe('ControllerRevisions', () => {
  it('stores the template as Go encodes it, keys sorted, with $patch replace', () => {
    expect(revisionPayload(template)).toBe(
      '{"spec":{"template":{"$patch":"replace","metadata":{"creationTimestamp":null,"labels":{"app":"web"}},"spec":{"containers":[{"image":"nginx","name":"c","resources":{}}]}}}}',
    );
  });

  it('hashes payload and collision count into safe-encoded names', () => {
    const payload = revisionPayload(template);
    const hash = hashRevision(payload, 0);
    expect(hash).toMatch(/^[bcdfghjklmnpqrstvwxz2456789]+$/);
    expect(hashRevision(payload, 1)).not.toBe(hash);
    expect(revisionName('web', hash)).toBe(`web-${hash}`);
    expect(revisionName('x'.repeat(300), 'h')).toHaveLength(225);
  });

  it('hashes a DaemonSet template the same way each time, differently per template and collision count', () => {
    const h = podTemplateHash(template, 0);
    expect(h).toMatch(/^[bcdfghjklmnpqrstvwxz2456789]+$/);
    expect(podTemplateHash(structuredClone(template), 0)).toBe(h);
    expect(podTemplateHash(template, 1)).not.toBe(h);
    const other = { ...template, spec: { containers: [{ name: 'c', image: 'nginx:2' }] } };
    expect(podTemplateHash(other, 0)).not.toBe(h);
  });

  it('orders history by revision number, then creation time, then name', () => {
    const r = (name: string, revision: number, creationTimestamp = '') => ({
      metadata: { name, creationTimestamp },
      revision,
    });
    const sorted = sortRevisions([
      r('c', 2),
      r('b', 1, '2024-01-02'),
      r('a', 1, '2024-01-02'),
      r('z', 1, '2024-01-01'),
    ]);
    expect(sorted.map((x) => x.metadata.name)).toEqual(['z', 'a', 'b', 'c']);
  });
});
