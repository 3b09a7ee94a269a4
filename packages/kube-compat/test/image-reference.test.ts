import { describe, expect, it } from 'vitest';
import {
  fullyQualifiedImage,
  InvalidImageReferenceError,
  parseImageReference,
} from '../src/image-reference.ts';

const HEX = 'a'.repeat(64);

describe('parseImageReference', () => {
  it.each([
    ['nginx', { domain: 'docker.io', path: 'library/nginx', familiarName: 'nginx', tag: undefined }],
    ['nginx:1.25', { domain: 'docker.io', path: 'library/nginx', familiarName: 'nginx', tag: '1.25' }],
    ['library/nginx', { domain: 'docker.io', path: 'library/nginx', familiarName: 'nginx', tag: undefined }],
    [
      'docker.io/nginx',
      { domain: 'docker.io', path: 'library/nginx', familiarName: 'nginx', tag: undefined },
    ],
    [
      'index.docker.io/nginx:2',
      { domain: 'docker.io', path: 'library/nginx', familiarName: 'nginx', tag: '2' },
    ],
    ['foo/bar:v1', { domain: 'docker.io', path: 'foo/bar', familiarName: 'foo/bar', tag: 'v1' }],
    [
      'registry.k8s.io/pause:3.9',
      { domain: 'registry.k8s.io', path: 'pause', familiarName: 'registry.k8s.io/pause', tag: '3.9' },
    ],
    [
      '127.0.0.1:5000/busybox:v1',
      { domain: '127.0.0.1:5000', path: 'busybox', familiarName: '127.0.0.1:5000/busybox', tag: 'v1' },
    ],
    ['localhost/app', { domain: 'localhost', path: 'app', familiarName: 'localhost/app', tag: undefined }],
    [
      'registry.k8s.io/e2e-test-images/nginx:1.14-2',
      {
        domain: 'registry.k8s.io',
        path: 'e2e-test-images/nginx',
        familiarName: 'registry.k8s.io/e2e-test-images/nginx',
        tag: '1.14-2',
      },
    ],
    [
      'a__b-c/e---f.g',
      { domain: 'docker.io', path: 'a__b-c/e---f.g', familiarName: 'a__b-c/e---f.g', tag: undefined },
    ],
  ])('parses %s', (input, expected) => {
    const ref = parseImageReference(input);
    expect({ domain: ref.domain, path: ref.path, familiarName: ref.familiarName, tag: ref.tag }).toEqual(
      expected,
    );
    expect(ref.name).toBe(`${expected.domain}/${expected.path}`);
  });

  it('parses a digest with a registry port and a deep path', () => {
    const ref = parseImageReference(`host:5000/a/b/c@sha256:${HEX}`);
    expect(ref).toMatchObject({ domain: 'host:5000', path: 'a/b/c', digest: `sha256:${HEX}` });
    expect(ref.tag).toBeUndefined();
  });

  it('keeps both tag and digest', () => {
    const ref = parseImageReference(`nginx:1.25@sha256:${HEX}`);
    expect(ref).toMatchObject({ familiarName: 'nginx', tag: '1.25', digest: `sha256:${HEX}` });
  });

  it.each([
    ['', 'repository name must have at least one component'],
    ['Nginx', 'invalid reference format: repository name (library/Nginx) must be lowercase'],
    ['foo/Bar:v1', 'invalid reference format: repository name (foo/Bar) must be lowercase'],
    ['nginx:', 'invalid reference format'],
    ['nginx:-bad', 'invalid reference format'],
    [':tag', 'repository name must have at least one component'],
    ['nginx@sha256:abc', 'invalid reference format'],
    [`nginx@sha256:${'a'.repeat(63)}`, 'invalid checksum digest length'],
    [`nginx@sha256:${'a'.repeat(65)}`, 'invalid checksum digest length'],
    [`nginx@md5:${'a'.repeat(32)}`, 'unsupported digest algorithm'],
    [`nginx@sha256:${'A'.repeat(64)}`, 'invalid checksum digest format'],
    [HEX, `invalid repository name (${HEX}), cannot specify 64-byte hexadecimal strings`],
    ['a//b', 'invalid reference format'],
    ['a/', 'invalid reference format'],
    ['nginx latest', 'invalid reference format'],
    ['-host.io/x', 'invalid reference format'],
    ['a__b.c/x', 'invalid reference format'],
    [`x/${'a'.repeat(260)}`, 'repository name must not be more than 255 characters'],
    ['nginx:ü', 'invalid reference format'],
    [`nginx:${'t'.repeat(129)}`, 'invalid reference format'],
  ])('rejects %j with %j', (input, message) => {
    expect(() => parseImageReference(input)).toThrow(InvalidImageReferenceError);
    expect(() => parseImageReference(input)).toThrow(message);
  });

  it('rejects a non-string with a clear message', () => {
    expect(() => parseImageReference(undefined as unknown as string)).toThrow(
      'repository name must have at least one component',
    );
  });
});

describe('fullyQualifiedImage', () => {
  it('adds the registry, library/ and latest', () => {
    expect(fullyQualifiedImage('nginx')).toBe('docker.io/library/nginx:latest');
    expect(fullyQualifiedImage('127.0.0.1:5000/busybox:v2')).toBe('127.0.0.1:5000/busybox:v2');
    expect(fullyQualifiedImage(`busybox@sha256:${HEX}`)).toBe(`docker.io/library/busybox@sha256:${HEX}`);
  });
});
