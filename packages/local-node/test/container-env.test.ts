import { describe, expect, it } from 'vitest';
import type { BoundPod } from '../src/node/bound-pod.ts';
import { ContainerConfigError, type EnvSources, resolveEnv } from '../src/node/container-env.ts';
import { expand, expandCommandAndArgs } from '../src/node/env-expansion.ts';

describe('$(VAR) expansion (Kubernetes third_party expansion cases)', () => {
  const vars: Record<string, string> = {
    VAR_A: 'A',
    VAR_B: 'B',
    VAR_C: 'C',
    VAR_REF: '$(VAR_A)',
    VAR_EMPTY: '',
  };
  const lookup = (n: string) => vars[n];
  it.each([
    ['$(VAR_A)', 'A'],
    ['___$(VAR_B)___', '___B___'],
    ['$(VAR_A)-$(VAR_B)', 'A-B'],
    ['$(VAR_REF)', '$(VAR_A)'],
    ['$(VAR_EMPTY)', ''],
    ['$(VAR_DNE)', '$(VAR_DNE)'],
    ['$$(VAR_A)', '$(VAR_A)'],
    ['$$$(VAR_A)', '$A'],
    ['$(VAR_A', '$(VAR_A'],
    ['$VAR_A', '$VAR_A'],
    ['f000-$$VAR_A', 'f000-$VAR_A'],
    ['foo\\$(VAR_C)bar', 'foo\\Cbar'],
    ['$', '$'],
    ['foo$()bar', 'foo$()bar'],
    ['$(VAR_A)$$$$(VAR_B)', 'A$$(VAR_B)'],
  ])('%s → %s', (input, want) => {
    expect(expand(input, lookup)).toBe(want);
  });

  it('expands command and args from the final env', () => {
    const env = new Map([['GREETING', 'hi']]);
    expect(expandCommandAndArgs({ command: ['echo', '$(GREETING)'], args: ['$(NOPE)'] }, env)).toEqual({
      command: ['echo', 'hi'],
      args: ['$(NOPE)'],
    });
  });
});

const pod = {
  metadata: {
    name: 'p',
    namespace: 'ns',
    uid: 'u-1',
    labels: { app: 'web', b: 'two' },
    annotations: { note: 'x"y' },
  },
  spec: {
    nodeName: 'n1',
    serviceAccountName: 'sa',
    containers: [
      { name: 'app', resources: { limits: { memory: '64Mi' }, requests: { cpu: '250m', memory: '32Mi' } } },
    ],
  },
} as BoundPod;
const facts = { hostIP: '10.0.0.5', podIP: '10.88.1.7', allocatable: { cpu: '2', memory: '4Gi' } };

function sources(
  configMaps: Record<string, Record<string, string>>,
  secrets: Record<string, Record<string, string>> = {},
): EnvSources {
  return {
    configMap: async (_ns, name) => (configMaps[name] ? { data: configMaps[name] } : undefined),
    secret: async (_ns, name) =>
      secrets[name]
        ? {
            data: Object.fromEntries(
              Object.entries(secrets[name]!).map(([k, v]) => [k, Buffer.from(v).toString('base64')]),
            ),
          }
        : undefined,
  };
}

describe("env as kubelet's makeEnvironmentVariables resolves it", () => {
  it('reads pod fields, labels and annotations, resources (limits defaulted to allocatable) and expands $(VAR)', async () => {
    const env = await resolveEnv(
      pod,
      {
        name: 'app',
        resources: pod.spec.containers[0]!.resources,
        env: [
          { name: 'NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
          { name: 'NS', valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } } },
          { name: 'UID', valueFrom: { fieldRef: { fieldPath: 'metadata.uid' } } },
          { name: 'APP', valueFrom: { fieldRef: { fieldPath: "metadata.labels['app']" } } },
          { name: 'MISSING', valueFrom: { fieldRef: { fieldPath: "metadata.labels['nope']" } } },
          { name: 'LABELS', valueFrom: { fieldRef: { fieldPath: 'metadata.labels' } } },
          { name: 'NOTE', valueFrom: { fieldRef: { fieldPath: "metadata.annotations['note']" } } },
          { name: 'NODE', valueFrom: { fieldRef: { fieldPath: 'spec.nodeName' } } },
          { name: 'SA', valueFrom: { fieldRef: { fieldPath: 'spec.serviceAccountName' } } },
          { name: 'POD_IP', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } },
          { name: 'HOST_IP', valueFrom: { fieldRef: { fieldPath: 'status.hostIP' } } },
          { name: 'CPU_REQ', valueFrom: { resourceFieldRef: { resource: 'requests.cpu', divisor: '1m' } } },
          { name: 'CPU_REQ_CORES', valueFrom: { resourceFieldRef: { resource: 'requests.cpu' } } },
          { name: 'CPU_LIM', valueFrom: { resourceFieldRef: { resource: 'limits.cpu' } } },
          { name: 'MEM_LIM', valueFrom: { resourceFieldRef: { resource: 'limits.memory', divisor: '1Mi' } } },
          { name: 'SELF', value: '$(APP)-$(NODE)-$(LATER)' },
          { name: 'LATER', value: 'late' },
        ],
      },
      facts,
      sources({}),
    );
    expect(Object.fromEntries(env)).toEqual({
      NAME: 'p',
      NS: 'ns',
      UID: 'u-1',
      APP: 'web',
      MISSING: '',
      LABELS: 'app="web"\nb="two"',
      NOTE: 'x"y',
      NODE: 'n1',
      SA: 'sa',
      POD_IP: '10.88.1.7',
      HOST_IP: '10.0.0.5',
      CPU_REQ: '250',
      CPU_REQ_CORES: '1',
      CPU_LIM: '2',
      MEM_LIM: '64',
      SELF: 'web-n1-$(LATER)',
      LATER: 'late',
    });
  });

  it('reads ConfigMap and Secret keys and envFrom (prefix, invalid names skipped with a warning); env wins over envFrom', async () => {
    const warnings: { reason: string; message: string }[] = [];
    const env = await resolveEnv(
      pod,
      {
        name: 'app',
        envFrom: [{ configMapRef: { name: 'cfg' }, prefix: 'CFG_' }, { secretRef: { name: 'creds' } }],
        env: [
          { name: 'COLOR', valueFrom: { configMapKeyRef: { name: 'cfg', key: 'color' } } },
          { name: 'PASS', valueFrom: { secretKeyRef: { name: 'creds', key: 'password' } } },
          { name: 'OPT', valueFrom: { configMapKeyRef: { name: 'absent', key: 'k', optional: true } } },
          { name: 'CFG_color', value: 'override' },
        ],
      },
      facts,
      sources({ cfg: { color: 'blue', 'bad key': 'x' } }, { creds: { password: 's3cret' } }),
      (w) => warnings.push(w),
    );
    expect(Object.fromEntries(env)).toEqual({
      CFG_color: 'override',
      password: 's3cret',
      COLOR: 'blue',
      PASS: 's3cret',
    });
    expect(env.has('OPT')).toBe(false);
    expect(warnings).toEqual([
      {
        reason: 'InvalidEnvironmentVariableNames',
        message:
          'Keys [CFG_bad key] from the EnvFrom configMap ns/cfg were skipped since they are considered invalid environment variable names.',
      },
    ]);
  });

  it("fails with kubelet's CreateContainerConfigError messages while a reference is missing", async () => {
    const run = (env: NonNullable<Parameters<typeof resolveEnv>[1]['env']>, src = sources({ cfg: {} })) =>
      resolveEnv(pod, { name: 'app', env }, facts, src);
    await expect(
      run([{ name: 'A', valueFrom: { configMapKeyRef: { name: 'cfg', key: 'k' } } }]),
    ).rejects.toThrow(new ContainerConfigError("couldn't find key k in ConfigMap ns/cfg"));
    await expect(
      run([{ name: 'A', valueFrom: { configMapKeyRef: { name: 'gone', key: 'k' } } }]),
    ).rejects.toThrow('configmap "gone" not found');
    await expect(
      run([{ name: 'A', valueFrom: { secretKeyRef: { name: 'gone', key: 'k' } } }]),
    ).rejects.toThrow('secret "gone" not found');
    await expect(
      run([{ name: 'A', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } }], sources({}, { s: {} })),
    ).rejects.toThrow("couldn't find key k in Secret ns/s");
    const err = await run([{ name: 'A', valueFrom: { fieldRef: { fieldPath: 'spec.nope' } } }]).catch(
      (e) => e,
    );
    expect(err).toBeInstanceOf(ContainerConfigError);
    expect(err.reason).toBe('CreateContainerConfigError');
    expect(err.message).toBe('unsupported fieldPath: spec.nope');
  });
});
