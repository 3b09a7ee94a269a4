import type { SidecarSet } from '@kruise/api';
import { describe, expect, it } from 'vitest';
import { mutateSidecarSet } from '../../src/webhooks/sidecarset/mutating.ts';
import { sidecarSetHash, sidecarSetHashWithoutImage } from '../../src/workload/sidecarset/index.ts';
import { defaulted, type Obj, request, sidecarSet } from './admission-helpers.ts';

/**
 * The SidecarSet's defaulting webhook (msidecarset.kb.io) called as the API server calls it:
 * upstream's defaults on the patched object at both versions, the two hash annotations, and
 * bodies it cannot decode answered 400.
 */

const HASH = 'kruise.io/sidecarset-hash';
const HASH_WITHOUT_IMAGE = 'kruise.io/sidecarset-hash-without-image';

/** Every defaulted field of a sidecar container, as upstream writes it. */
const containerDefaults = (inject: string, pullPolicy: string) => ({
  resources: {},
  terminationMessagePath: '/dev/termination-log',
  terminationMessagePolicy: 'File',
  imagePullPolicy: pullPolicy,
  podInjectPolicy: inject,
  upgradeStrategy: { upgradeType: 'ColdUpgrade' },
  shareVolumePolicy: { type: 'disabled' },
});

describe('SidecarSet defaulting (msidecarset.kb.io)', () => {
  it.each(['v1beta1', 'v1alpha1'])('stores upstream’s defaults at %s', async (version) => {
    const obj = sidecarSet(
      'defaults',
      {
        initContainers: [{ name: 'init', image: 'busybox' }],
        containers: [
          {
            name: 'proxy',
            image: 'envoy:1.29',
            ports: [{ containerPort: 80 }],
            env: [{ name: 'POD', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }],
            livenessProbe: { httpGet: { port: 80 } },
            readinessProbe: { exec: { command: ['true'] } },
            startupProbe: { exec: { command: ['true'] } },
            lifecycle: { preStop: { httpGet: { port: 80 } } },
            transferEnv: [
              {
                envName: 'X',
                sourceContainerNameFrom: { fieldRef: { fieldPath: "metadata.labels['main']" } },
              },
            ],
          },
        ],
        volumes: [{ name: 'scratch' }, { name: 'config', configMap: { name: 'cm' } }],
        patchPodMetadata: [{ annotations: { 'a.io/b': 'c' } }],
        injectionStrategy: { revision: { customVersion: 'v1' } },
      },
      {},
      `apps.kruise.io/${version}`,
    );
    const out = await defaulted(request('CREATE', obj, undefined, version));
    expect(out.metadata).toEqual({
      name: 'defaults',
      annotations: {
        [HASH]: sidecarSetHash(out as SidecarSet),
        [HASH_WITHOUT_IMAGE]: sidecarSetHashWithoutImage(out as SidecarSet),
      },
    });
    expect(out.spec).toEqual({
      selector: { matchLabels: { app: 'web' } },
      initContainers: [
        { name: 'init', image: 'busybox', ...containerDefaults('AfterAppContainer', 'Always') },
      ],
      containers: [
        {
          name: 'proxy',
          image: 'envoy:1.29',
          ports: [{ containerPort: 80, protocol: 'TCP' }],
          env: [{ name: 'POD', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.name' } } }],
          livenessProbe: {
            httpGet: { port: 80, path: '/', scheme: 'HTTP' },
            timeoutSeconds: 1,
            periodSeconds: 10,
            successThreshold: 1,
            failureThreshold: 3,
          },
          readinessProbe: {
            exec: { command: ['true'] },
            timeoutSeconds: 1,
            periodSeconds: 10,
            successThreshold: 1,
            failureThreshold: 3,
          },
          // upstream defaults the liveness and readiness probes only
          startupProbe: { exec: { command: ['true'] } },
          lifecycle: { preStop: { httpGet: { port: 80, path: '/', scheme: 'HTTP' } } },
          transferEnv: [
            {
              envName: 'X',
              sourceContainerNameFrom: {
                fieldRef: { apiVersion: 'v1', fieldPath: "metadata.labels['main']" },
              },
            },
          ],
          ...containerDefaults('BeforeAppContainer', 'IfNotPresent'),
        },
      ],
      volumes: [
        { name: 'scratch', emptyDir: {} },
        { name: 'config', configMap: { name: 'cm', defaultMode: 420 } },
      ],
      updateStrategy: { type: 'RollingUpdate', partition: 0, maxUnavailable: 1 },
      injectionStrategy: { revision: { customVersion: 'v1', policy: 'Always' } },
      revisionHistoryLimit: 10,
      patchPodMetadata: [{ annotations: { 'a.io/b': 'c' }, patchPolicy: 'Retain' }],
    });
  });

  it('keeps v1alpha1’s namespace and what the user set', async () => {
    const obj = sidecarSet(
      'kept',
      {
        namespace: 'team-a',
        containers: [
          {
            name: 'proxy',
            image: 'envoy:latest',
            imagePullPolicy: 'Never',
            podInjectPolicy: 'AfterAppContainer',
            upgradeStrategy: { upgradeType: 'HotUpgrade', hotUpgradeEmptyImage: 'empty:1' },
            shareVolumePolicy: { type: 'enabled' },
          },
        ],
        updateStrategy: { type: 'NotUpdate', partition: '50%', maxUnavailable: '20%' },
        revisionHistoryLimit: 3,
        patchPodMetadata: [{ annotations: { a: 'b' }, patchPolicy: 'Overwrite' }],
      },
      {},
      'apps.kruise.io/v1alpha1',
    );
    const out = await defaulted(request('CREATE', obj, undefined, 'v1alpha1'));
    expect(out.spec.namespace).toBe('team-a');
    expect(out.spec.containers[0]).toMatchObject({
      imagePullPolicy: 'Never',
      podInjectPolicy: 'AfterAppContainer',
      upgradeStrategy: { upgradeType: 'HotUpgrade', hotUpgradeEmptyImage: 'empty:1' },
      shareVolumePolicy: { type: 'enabled' },
    });
    expect(out.spec.updateStrategy).toEqual({ type: 'NotUpdate', partition: '50%', maxUnavailable: '20%' });
    expect(out.spec.revisionHistoryLimit).toBe(3);
    expect(out.spec.patchPodMetadata[0].patchPolicy).toBe('Overwrite');
  });

  it('a `latest` or untagged image is pulled Always, a tagged one IfNotPresent', async () => {
    const out = await defaulted(
      request(
        'CREATE',
        sidecarSet('pull', {
          containers: [
            { name: 'a', image: 'nginx' },
            { name: 'b', image: 'nginx:latest' },
            { name: 'c', image: 'nginx:1.25' },
          ],
        }),
      ),
    );
    expect(out.spec.containers.map((c: Obj) => c.imagePullPolicy)).toEqual([
      'Always',
      'Always',
      'IfNotPresent',
    ]);
  });

  it('annotates the hashes of the defaulted sidecars, as the library computes them', async () => {
    const out = await defaulted(request('CREATE', sidecarSet('hashes')));
    const annotations = out.metadata.annotations;
    expect(annotations[HASH]).toBe(sidecarSetHash(out as SidecarSet));
    expect(annotations[HASH_WITHOUT_IMAGE]).toBe(sidecarSetHashWithoutImage(out as SidecarSet));
    // the hash covers the defaults: the sidecar as sent hashes differently
    expect(annotations[HASH]).not.toBe(sidecarSetHash(sidecarSet('hashes') as SidecarSet));
  });

  it('an image change moves the hash only; any other change moves both', async () => {
    const base = await defaulted(request('CREATE', sidecarSet('h')));
    const image = await defaulted(
      request('UPDATE', sidecarSet('h', { containers: [{ name: 'sidecar', image: 'busybox:1.37' }] }), base),
    );
    const args = await defaulted(
      request(
        'UPDATE',
        sidecarSet('h', { containers: [{ name: 'sidecar', image: 'busybox:1.36', args: ['-v'] }] }),
        base,
      ),
    );
    const a = (o: Obj) => o.metadata.annotations;
    expect(a(image)[HASH]).not.toBe(a(base)[HASH]);
    expect(a(image)[HASH_WITHOUT_IMAGE]).toBe(a(base)[HASH_WITHOUT_IMAGE]);
    expect(a(args)[HASH]).not.toBe(a(base)[HASH]);
    expect(a(args)[HASH_WITHOUT_IMAGE]).not.toBe(a(base)[HASH_WITHOUT_IMAGE]);
  });

  it('replaces stale hash annotations and keeps the others', async () => {
    const out = await defaulted(
      request('CREATE', sidecarSet('stale', {}, { annotations: { [HASH]: 'old', note: 'kept' } })),
    );
    expect(out.metadata.annotations.note).toBe('kept');
    expect(out.metadata.annotations[HASH]).toBe(sidecarSetHash(out as SidecarSet));
  });

  it('sends no patch for an object already defaulted', async () => {
    const once = await defaulted(request('CREATE', sidecarSet('once')));
    const r = await mutateSidecarSet(request('UPDATE', once, once));
    expect(r).toMatchObject({ allowed: true });
    expect(r.patch).toBeUndefined();
  });

  it.each([
    ['a spec that is not an object', { ...sidecarSet('x'), spec: [] }, 'json: cannot unmarshal array'],
    [
      'containers that are not a list',
      sidecarSet('x', { containers: 'proxy' }),
      'json: cannot unmarshal string into Go struct field SidecarSet.spec.containers of type []',
    ],
    [
      'a port that is not a number',
      sidecarSet('x', { containers: [{ name: 'a', image: 'b', ports: [{ containerPort: 'eighty' }] }] }),
      'json: cannot unmarshal string',
    ],
    ['no object', null, 'there is no content to decode'],
  ])('answers 400 to %s', async (_what, obj, message) => {
    const r = await mutateSidecarSet(request('CREATE', obj));
    expect(r.allowed).toBe(false);
    expect(r.status?.code).toBe(400);
    expect(r.status?.message).toContain(message);
  });
});
