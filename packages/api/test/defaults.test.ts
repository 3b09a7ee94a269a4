import { describe, expect, it } from 'vitest';
import {
  type ImageListPullJob,
  type ImagePullJob,
  type NodeImage,
  setImageListPullJobDefaults,
  setImagePullJobDefaults,
  setNodeImageDefaults,
} from '../src/index.ts';

describe('defaults', () => {
  it('fills an ImagePullJob as upstream does, keeping what the user set', () => {
    const job: ImagePullJob = {
      spec: { image: 'nginx', completionPolicy: {}, pullPolicy: { backoffLimit: 0 } },
    };
    setImagePullJobDefaults(job);
    expect(job.spec).toEqual({
      image: 'nginx',
      completionPolicy: { type: 'Always' },
      pullPolicy: { timeoutSeconds: 600, backoffLimit: 0 },
      imagePullPolicy: 'IfNotPresent',
    });
  });

  it('gives an ImageListPullJob no imagePullPolicy', () => {
    const job: ImageListPullJob = { spec: { images: ['a'], completionPolicy: { type: 'Never' } } };
    setImageListPullJobDefaults(job);
    expect(job.spec).toEqual({
      images: ['a'],
      completionPolicy: { type: 'Never' },
      pullPolicy: { timeoutSeconds: 600, backoffLimit: 3 },
    });
  });

  it('stamps and sorts NodeImage tags', () => {
    const ni: NodeImage = {
      spec: { images: { nginx: { tags: [{ tag: 'b' }, { tag: 'a', createdAt: '2020-01-01T00:00:00Z' }] } } },
      status: {
        desired: 2,
        imageStatuses: {
          nginx: {
            tags: [
              { tag: 'z', phase: 'Pulling' },
              { tag: 'a', phase: 'Waiting' },
            ],
          },
        },
      },
    };
    setNodeImageDefaults(ni, '2026-01-01T00:00:00Z');
    expect(ni.spec!.images!.nginx!.tags).toEqual([
      { tag: 'a', createdAt: '2020-01-01T00:00:00Z', pullPolicy: { timeoutSeconds: 600, backoffLimit: 3 } },
      { tag: 'b', createdAt: '2026-01-01T00:00:00Z', pullPolicy: { timeoutSeconds: 600, backoffLimit: 3 } },
    ]);
    expect(ni.status!.imageStatuses!.nginx!.tags.map((t) => t.tag)).toEqual(['a', 'z']);
  });
});
