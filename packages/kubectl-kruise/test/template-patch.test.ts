import { describe, expect, it } from 'vitest';
import { WORKLOAD_KINDS } from '../src/kinds.ts';
import { type PodTemplate, templatePatch } from '../src/template-patch.ts';

const cloneSet = WORKLOAD_KINDS.find((k) => k.kind === 'CloneSet')!;
const template = (image: string, env?: { name: string; value: string }[]): PodTemplate => ({
  metadata: { labels: { app: 'web' } },
  spec: {
    containers: [
      { name: 'app', image, ...(env ? { env } : {}), resources: {} },
      { name: 'side', image: 'side:v1' },
    ],
  },
});

describe('templatePatch', () => {
  it('turns an image change into one guarded replace of that field, never the containers list', () => {
    expect(templatePatch(cloneSet, template('app:v1'), template('app:v2'))).toEqual([
      { op: 'test', path: '/spec/template/spec/containers/0/name', value: 'app' },
      { op: 'replace', path: '/spec/template/spec/containers/0/image', value: 'app:v2' },
    ]);
  });

  it('sends nothing when nothing changed, and adds a field the container lacked', () => {
    expect(templatePatch(cloneSet, template('app:v1'), template('app:v1'))).toEqual([]);
    const env = [{ name: 'A', value: '1' }];
    expect(templatePatch(cloneSet, template('app:v1'), template('app:v1', env))).toEqual([
      { op: 'test', path: '/spec/template/spec/containers/0/name', value: 'app' },
      { op: 'add', path: '/spec/template/spec/containers/0/env', value: env },
    ]);
  });

  it('patches other template fields key by key and refuses a change in the number of containers', () => {
    const after = template('app:v1');
    after.spec!.serviceAccountName = 'robot';
    after.metadata!.labels!.tier = 'a/b';
    expect(templatePatch(cloneSet, template('app:v1'), after)).toEqual([
      { op: 'add', path: '/spec/template/metadata/labels/tier', value: 'a/b' },
      { op: 'add', path: '/spec/template/spec/serviceAccountName', value: 'robot' },
    ]);
    const fewer = template('app:v1');
    fewer.spec!.containers = fewer.spec!.containers.slice(0, 1);
    expect(() => templatePatch(cloneSet, template('app:v1'), fewer)).toThrow(
      'the number of containers changed',
    );
  });
});
