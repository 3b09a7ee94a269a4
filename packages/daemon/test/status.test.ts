import { describe, expect, it } from 'vitest';
import { buildNodeImageStatus } from '../src/imagepuller/status.ts';

describe('buildNodeImageStatus', () => {
  it('counts every desired tag and the phases of those that report, tags sorted per image', () => {
    const status = buildNodeImageStatus([
      { image: 'a', tag: 'v2', status: { tag: 'v2', phase: 'Pulling', progress: 40 } },
      { image: 'a', tag: 'v1', status: { tag: 'v1', phase: 'Succeeded', imageID: 'a@sha256:1' } },
      { image: 'b', tag: 'v1', status: { tag: 'v1', phase: 'Failed', message: 'boom' } },
      { image: 'b', tag: 'v2', status: { tag: 'v2', phase: 'Waiting' } },
      { image: 'c', tag: 'v1', status: undefined },
    ]);
    expect(status).toEqual({
      desired: 5,
      succeeded: 1,
      failed: 1,
      pulling: 1,
      waiting: 1,
      imageStatuses: {
        a: {
          tags: [
            { tag: 'v1', phase: 'Succeeded', imageID: 'a@sha256:1' },
            { tag: 'v2', phase: 'Pulling', progress: 40 },
          ],
        },
        b: {
          tags: [
            { tag: 'v1', phase: 'Failed', message: 'boom' },
            { tag: 'v2', phase: 'Waiting' },
          ],
        },
      },
    });
  });

  it('has no imageStatuses when nothing reports', () => {
    expect(buildNodeImageStatus([{ image: 'a', tag: 'v1', status: undefined }])).toEqual({
      desired: 1,
      succeeded: 0,
      failed: 0,
      pulling: 0,
      waiting: 0,
    });
    expect(buildNodeImageStatus([])).toMatchObject({ desired: 0 });
  });
});
