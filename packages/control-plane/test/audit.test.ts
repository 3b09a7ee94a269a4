import { describe, expect, it } from 'vitest';
import { type AuditRecord, AuditTrail } from '../src/audit.ts';

const record = (name: string): AuditRecord => ({
  time: '2026-11-24T00:00:00.000Z',
  user: 'u',
  groups: [],
  verb: 'create',
  group: '',
  resource: 'configmaps',
  subresource: '',
  namespace: 'default',
  name,
  path: `/api/v1/namespaces/default/configmaps/${name}`,
  code: 201,
});

describe('AuditTrail', () => {
  it('keeps the newest `limit` records, oldest first, however often it wraps', () => {
    const trail = new AuditTrail(3);
    const names = () => trail.list().map((r) => r.name);
    trail.add(record('a'));
    trail.add(record('b'));
    expect(names()).toEqual(['a', 'b']);
    trail.add(record('c'));
    trail.add(record('d'));
    expect(names()).toEqual(['b', 'c', 'd']);
    for (const n of ['e', 'f', 'g', 'h']) trail.add(record(n));
    expect(names()).toEqual(['f', 'g', 'h']);
    expect(trail.list((r) => r.name !== 'g').map((r) => r.name)).toEqual(['f', 'h']);
    trail.clear();
    expect(names()).toEqual([]);
    trail.add(record('i'));
    expect(names()).toEqual(['i']);
  });
});
