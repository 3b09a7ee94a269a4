import { parseImageReference } from '@kruise/kube-compat';
import { describe, expect, it } from 'vitest';
import { joinImageNameTag, normalizeImageToNameTag } from '../src/index.ts';

const HEX = 'a'.repeat(64);

describe('normalizeImageToNameTag', () => {
  it.each([
    ['nginx', 'nginx', 'latest'],
    ['docker.io/library/nginx:1.25', 'nginx', '1.25'],
    ['127.0.0.1:5000/busybox:v1', '127.0.0.1:5000/busybox', 'v1'],
    [`nginx:1.25@sha256:${HEX}`, 'nginx', `sha256:${HEX}`],
    [`registry.k8s.io/pause@sha256:${HEX}`, 'registry.k8s.io/pause', `sha256:${HEX}`],
  ])('%s → %s %s', (image, name, tag) => {
    expect(normalizeImageToNameTag(image)).toEqual({ name, tag });
  });

  it('round-trips through joinImageNameTag', () => {
    expect(joinImageNameTag('nginx', '1.25')).toBe('nginx:1.25');
    expect(joinImageNameTag('nginx', `sha256:${HEX}`)).toBe(`nginx@sha256:${HEX}`);
    const { name, tag } = normalizeImageToNameTag(`host:5000/a/b@sha256:${HEX}`);
    expect(parseImageReference(joinImageNameTag(name, tag)).digest).toBe(`sha256:${HEX}`);
  });
});
