import { describe, expect, it } from 'vitest';
import { formatKubeletContainerHash, kubeletContainerHash, parseKubeletContainerHash } from '../src/index.ts';

describe("kubelet's container hash (Kubernetes ≥ 1.31)", () => {
  it("matches kubelet's own test vector (container_hash_test.go sampleV131HashValue)", () => {
    // The sample container also has command, args, ports, env and resources: none of them count.
    const sample = {
      name: 'test_container',
      image: 'foo/image:v1',
      command: ['/bin/testcmd'],
      args: ['/bin/sh', '-c', 'echo abc'],
      ports: [{ containerPort: 8001 }],
      env: [{ name: 'ENV_FOO', value: 'bar' }],
    };
    expect(kubeletContainerHash(sample)).toBe(0x8e45cbd0);
    expect(formatKubeletContainerHash(kubeletContainerHash(sample))).toBe('8e45cbd0');
  });

  it('changes with the image and the name only', () => {
    const a = kubeletContainerHash({ name: 'app', image: 'nginx:1.25' });
    expect(kubeletContainerHash({ name: 'app', image: 'nginx:1.26' })).not.toBe(a);
    expect(kubeletContainerHash({ name: 'web', image: 'nginx:1.25' })).not.toBe(a);
    expect(kubeletContainerHash({ name: 'app', image: 'nginx:1.25', args: ['x'] } as never)).toBe(a);
  });

  it('reads the annotation back as kubelet parses it', () => {
    expect(parseKubeletContainerHash('8e45cbd0')).toBe(0x8e45cbd0);
    expect(parseKubeletContainerHash(undefined)).toBe(0);
    expect(parseKubeletContainerHash('not-hex')).toBe(0);
  });
});
