import { describe, expect, it } from 'vitest';
import { apiServerForPod, hostAddressOnSubnetOf, kubernetesServiceEnv } from '../src/node/api-server-env.ts';
import type { BoundPod } from '../src/node/bound-pod.ts';
import { ContainerConfigError, resolveEnv } from '../src/node/container-env.ts';
import {
  imageUserOf,
  linuxContainerSecurityContext,
  verifyRunAsNonRoot,
} from '../src/node/security-context.ts';
import {
  requiresRefresh,
  ServiceAccountTokens,
  type TokenRequest,
} from '../src/node/service-account-tokens.ts';

const pod = (spec: Partial<BoundPod['spec']> = {}): BoundPod => ({
  metadata: { name: 'web', namespace: 'default', uid: 'u1' },
  spec: { containers: [{ name: 'app', image: 'busybox' }], ...spec },
});

describe('securityContext as kubelet hands it to CRI', () => {
  it('merges pod and container fields; the image user fills in a missing runAsUser', () => {
    const p = pod({
      securityContext: { runAsUser: 65534, runAsGroup: 65534, fsGroup: 2000, supplementalGroups: [3000] },
      containers: [
        {
          name: 'app',
          securityContext: {
            runAsGroup: 7,
            readOnlyRootFilesystem: true,
            allowPrivilegeEscalation: false,
            capabilities: { drop: ['ALL'], add: ['NET_BIND_SERVICE'] },
          },
        },
      ],
    });
    expect(linuxContainerSecurityContext(p, p.spec.containers[0]!, { uid: 0 })).toEqual({
      privileged: false,
      readonlyRootfs: true,
      noNewPrivs: true,
      supplementalGroups: ['2000', '3000'],
      capabilities: { addCapabilities: ['NET_BIND_SERVICE'], dropCapabilities: ['ALL'] },
      runAsUser: { value: '65534' },
      runAsGroup: { value: '7' },
    });
    const bare = pod();
    expect(
      linuxContainerSecurityContext(bare, bare.spec.containers[0]!, { username: 'nobody' }),
    ).toMatchObject({
      runAsUsername: 'nobody',
      noNewPrivs: false,
    });
  });

  it('an image naming no user runs as root; runAsNonRoot refuses it, and a runAsUser of 0, in kubelet’s words', () => {
    expect(imageUserOf(null)).toEqual({ uid: 0 });
    expect(imageUserOf({ uid: { value: '1000' }, username: '' })).toEqual({ uid: 1000 });
    const p = pod({ securityContext: { runAsNonRoot: true } });
    const c = p.spec.containers[0]!;
    expect(() => verifyRunAsNonRoot(p, c, { uid: 0 })).toThrow(
      new ContainerConfigError(
        'container has runAsNonRoot and image will run as root (pod: "web_default(u1)", container: app)',
      ),
    );
    expect(() => verifyRunAsNonRoot(p, c, { username: 'app' })).toThrow(
      'container has runAsNonRoot and image has non-numeric user (app), cannot verify user is non-root (pod: "web_default(u1)", container: app)',
    );
    expect(() => verifyRunAsNonRoot(p, c, { uid: 1000 })).not.toThrow();
    const zero = pod({ securityContext: { runAsNonRoot: true, runAsUser: 0 } });
    expect(() => verifyRunAsNonRoot(zero, zero.spec.containers[0]!, { uid: 1000 })).toThrow(
      'container\'s runAsUser breaks non-root policy (pod: "web_default(u1)", container: app)',
    );
  });
});

describe('bound ServiceAccount tokens', () => {
  const issued = (atMs: number, seconds: number): TokenRequest => ({
    spec: { expirationSeconds: seconds },
    status: { token: `t${atMs}`, expirationTimestamp: new Date(atMs + seconds * 1000).toISOString() },
  });
  it('are refreshed past 80% of their lifetime or after 24 h (kubelet’s rule)', () => {
    const t = issued(0, 600);
    expect(requiresRefresh(t, 479_000)).toBe(false);
    expect(requiresRefresh(t, 481_000)).toBe(true);
    expect(requiresRefresh(t, 470_000, 20_000)).toBe(true);
    const year = issued(0, 365 * 24 * 3600);
    expect(requiresRefresh(year, 24 * 3600 * 1000 - 1000)).toBe(false);
    expect(requiresRefresh(year, 24 * 3600 * 1000 + 1000)).toBe(true);
  });

  it('are cached per pod and asked for again when due; a failed refresh keeps a token that has not expired', async () => {
    let now = 0;
    const asked: unknown[] = [];
    let fail = false;
    const tokens = new ServiceAccountTokens(
      async (ns, sa, spec) => {
        asked.push([ns, sa, spec]);
        if (fail) throw new Error('serviceaccounts "reader" not found');
        return issued(now, spec.expirationSeconds);
      },
      () => now,
    );
    const spec = {
      expirationSeconds: 600,
      boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'web', uid: 'u1' },
    } as const;
    expect(await tokens.token('default', 'reader', spec)).toBe('t0');
    expect(await tokens.token('default', 'reader', spec)).toBe('t0');
    expect(asked).toEqual([['default', 'reader', spec]]);
    now = 500_000;
    expect(await tokens.token('default', 'reader', spec)).toBe('t500000');
    fail = true;
    now = 1_000_000;
    expect(await tokens.token('default', 'reader', spec)).toBe('t500000');
    now = 1_200_000;
    await expect(tokens.token('default', 'reader', spec)).rejects.toThrow('not found');
    tokens.forgetPod('u1');
    fail = false;
    expect(await tokens.token('default', 'reader', spec)).toBe('t1200000');
  });
});

describe('the kubernetes Service’s variables', () => {
  const interfaces = {
    lo: [{ address: '127.0.0.1', netmask: '255.0.0.0', family: 'IPv4', internal: true }],
    kcni3: [{ address: '10.88.3.1', netmask: '255.255.255.0', family: 'IPv4', internal: false }],
  } as unknown as Parameters<typeof hostAddressOnSubnetOf>[1];
  it('point a host-network pod at the server as the node reaches it, a pod-network pod at the bridge’s gateway', () => {
    expect(hostAddressOnSubnetOf('10.88.3.7', interfaces)).toBe('10.88.3.1');
    expect(hostAddressOnSubnetOf('10.99.0.2', interfaces)).toBeUndefined();
    expect(apiServerForPod('https://127.0.0.1:6443', true, '127.0.0.1', interfaces)).toEqual({
      host: '127.0.0.1',
      port: 6443,
    });
    expect(apiServerForPod('https://127.0.0.1:6443', false, '10.88.3.7', interfaces)).toEqual({
      host: '10.88.3.1',
      port: 6443,
    });
    expect(apiServerForPod('https://api.example:443', false, '10.88.3.7', interfaces).host).toBe(
      'api.example',
    );
  });

  it('are kubelet’s envvars for a Service `kubernetes` with one port named https; the container’s own win and see them in $(VAR)', async () => {
    const serviceEnv = kubernetesServiceEnv({ host: '10.88.3.1', port: 6443 });
    expect(Object.fromEntries(serviceEnv)).toEqual({
      KUBERNETES_SERVICE_HOST: '10.88.3.1',
      KUBERNETES_SERVICE_PORT: '6443',
      KUBERNETES_SERVICE_PORT_HTTPS: '6443',
      KUBERNETES_PORT: 'tcp://10.88.3.1:6443',
      KUBERNETES_PORT_6443_TCP: 'tcp://10.88.3.1:6443',
      KUBERNETES_PORT_6443_TCP_PROTO: 'tcp',
      KUBERNETES_PORT_6443_TCP_PORT: '6443',
      KUBERNETES_PORT_6443_TCP_ADDR: '10.88.3.1',
    });
    const p = pod();
    const env = await resolveEnv(
      p,
      {
        name: 'app',
        env: [
          { name: 'API', value: 'https://$(KUBERNETES_SERVICE_HOST):$(KUBERNETES_SERVICE_PORT)' },
          { name: 'KUBERNETES_SERVICE_PORT', value: '1' },
        ],
      },
      { hostIP: '127.0.0.1', allocatable: {}, serviceEnv },
      { configMap: async () => undefined, secret: async () => undefined },
    );
    expect(env.get('API')).toBe('https://10.88.3.1:6443');
    expect(env.get('KUBERNETES_SERVICE_PORT')).toBe('1');
    expect(env.get('KUBERNETES_SERVICE_HOST')).toBe('10.88.3.1');
    expect([...env.keys()].slice(0, 2)).toEqual(['API', 'KUBERNETES_SERVICE_PORT']);
  });
});
