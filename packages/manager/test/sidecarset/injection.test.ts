import { describe, expect, it } from 'vitest';
import { mergeSidecarContainers } from '../../src/webhooks/pod/sidecarset/merge.ts';
import { inject, lookups, NOW, names, sidecarSet, webPod } from './injection-helpers.ts';

const app = { name: 'app', image: 'nginx:1.25' };

describe('SidecarSet injection: selection', () => {
  it('injects only SidecarSets whose selector (and namespaceSelector) match, injection not paused', async () => {
    const sets = [
      sidecarSet('match', { containers: [{ name: 'log', image: 'busybox' }] }),
      sidecarSet('other', {
        selector: { matchLabels: { app: 'db' } },
        containers: [{ name: 'x', image: 'busybox' }],
      }),
      sidecarSet('paused', {
        injectionStrategy: { paused: true },
        containers: [{ name: 'p', image: 'busybox' }],
      }),
      sidecarSet('prod-only', {
        namespaceSelector: { matchLabels: { env: 'prod' } },
        containers: [{ name: 'prod', image: 'busybox' }],
      }),
      sidecarSet('empty-selector', { selector: {}, containers: [{ name: 'e', image: 'busybox' }] }),
    ];
    const { pod, changed } = await inject(webPod([app]), sets);
    expect(changed).toBe(true);
    expect(names(pod.spec?.containers)).toEqual(['app', 'log']);
    expect(pod.metadata?.annotations?.['kruise.io/sidecarset-injected-list']).toBe('match');

    const prod = await inject(webPod([app]), lookups(sets, { default: { env: 'prod' } }));
    expect(names(prod.pod.spec?.containers)).toEqual(['app', 'log', 'prod']);
    // A namespace that cannot be read does not match a namespaceSelector.
    const gone = await inject(webPod([app]), lookups(sets, {}));
    expect(names(gone.pod.spec?.containers)).toEqual(['app', 'log']);
  });

  it('leaves a pod no SidecarSet selects, and pods that are done or being deleted, unchanged', async () => {
    const sets = [sidecarSet('s', { containers: [{ name: 'log', image: 'busybox' }] })];
    const none = await inject(webPod([app], { metadata: { labels: { app: 'db' } } }), sets);
    expect(none.changed).toBe(false);
    expect(none.pod.metadata?.annotations).toBeUndefined();
    for (const phase of ['Succeeded', 'Failed'])
      expect((await inject(webPod([app], { status: { phase } }), sets)).changed).toBe(false);
    const deleting = webPod([app], { metadata: { deletionTimestamp: '2026-01-01T00:00:00Z' } });
    expect((await inject(deleting, sets)).changed).toBe(false);
  });
});

describe('SidecarSet injection: containers', () => {
  it.each([
    // upstream's TestMergeSidecarContainers
    [
      'new sidecars before and after',
      ['app-container'],
      ['sidecar-2', 'sidecar-1', 'new-sidecar-1'],
      ['new-sidecar-1', 'app-container', 'sidecar-1', 'sidecar-2'],
    ],
    ['only before', ['app-container'], ['new-sidecar-1'], ['new-sidecar-1', 'app-container']],
    [
      'only after',
      ['app-container'],
      ['sidecar-2', 'sidecar-1'],
      ['app-container', 'sidecar-1', 'sidecar-2'],
    ],
    [
      'same-named replaced in place',
      ['sidecar-1', 'app-container', 'sidecar-2'],
      ['sidecar-2', 'sidecar-1'],
      ['sidecar-1', 'app-container', 'sidecar-2'],
    ],
    [
      'replaced and new',
      ['sidecar-1', 'app-container', 'sidecar-2'],
      ['sidecar-2', 'sidecar-1', 'new-sidecar-1'],
      ['new-sidecar-1', 'sidecar-1', 'app-container', 'sidecar-2'],
    ],
    [
      'no pod containers',
      [],
      ['sidecar-2', 'sidecar-1', 'new-sidecar-1'],
      ['new-sidecar-1', 'sidecar-1', 'sidecar-2'],
    ],
  ])('merges containers as upstream: %s', (_, origins, injected, expected) => {
    const policy = (n: string): 'BeforeAppContainer' | 'AfterAppContainer' =>
      n.startsWith('new') ? 'BeforeAppContainer' : 'AfterAppContainer';
    const sidecars = injected
      .map((name) => ({ name, podInjectPolicy: policy(name) }))
      .sort((a, b) => (a.name < b.name ? -1 : 1));
    expect(
      names(
        mergeSidecarContainers(
          origins.map((name) => ({ name })),
          sidecars,
        ),
      ),
    ).toEqual(expected);
  });

  it('puts BeforeAppContainer sidecars first and the rest after, with IS_INJECTED and no SidecarSet fields', async () => {
    const set = sidecarSet('s', {
      containers: [
        {
          name: 'after',
          image: 'busybox',
          podInjectPolicy: 'AfterAppContainer',
          upgradeStrategy: { upgradeType: 'ColdUpgrade' },
          shareVolumePolicy: { type: 'disabled' },
        },
        {
          name: 'before',
          image: 'busybox',
          podInjectPolicy: 'BeforeAppContainer',
          env: [{ name: 'A', value: '1' }],
        },
      ],
    });
    const { pod } = await inject(webPod([app]), [set]);
    expect(names(pod.spec?.containers)).toEqual(['before', 'app', 'after']);
    expect(pod.spec?.containers[0]).toEqual({
      name: 'before',
      image: 'busybox',
      env: [
        { name: 'A', value: '1' },
        { name: 'IS_INJECTED', value: 'true' },
      ],
    });
    expect(pod.spec?.containers[2]).toEqual({
      name: 'after',
      image: 'busybox',
      env: [{ name: 'IS_INJECTED', value: 'true' }],
    });
  });

  it('replaces a pod container of the same name where it stands', async () => {
    const set = sidecarSet('s', {
      containers: [{ name: 'log', image: 'busybox:new', podInjectPolicy: 'BeforeAppContainer' }],
    });
    const { pod } = await inject(webPod([app, { name: 'log', image: 'busybox:old' }]), [set]);
    expect(pod.spec?.containers.map((c) => `${c.name}=${c.image}`)).toEqual([
      'app=nginx:1.25',
      'log=busybox:new',
    ]);
  });

  it('sorts sidecar containers by name only under gate EnableSortSidecarContainerByName', async () => {
    const sets = [
      sidecarSet('a', { containers: [{ name: 'zz', image: 'busybox' }] }),
      sidecarSet('b', { containers: [{ name: 'aa', image: 'busybox' }] }),
    ];
    expect(names((await inject(webPod([app]), sets)).pod.spec?.containers)).toEqual(['app', 'zz', 'aa']);
    const sorted = await inject(webPod([app]), sets, { gates: 'EnableSortSidecarContainerByName=true' });
    expect(names(sorted.pod.spec?.containers)).toEqual(['app', 'aa', 'zz']);
  });

  it('injects init containers sorted by name after the pod’s, plain and native sidecars alike', async () => {
    const set = sidecarSet('s', {
      initContainers: [
        { name: 'z-init', image: 'busybox' },
        { name: 'b-native', image: 'busybox', restartPolicy: 'Always' },
        { name: 'a-init', image: 'busybox' },
      ],
    });
    const { pod } = await inject(
      webPod([app], { spec: { containers: [], initContainers: [{ name: 'pod-init', image: 'x' }] } }),
      [set],
    );
    expect(names(pod.spec?.initContainers)).toEqual(['pod-init', 'a-init', 'b-native', 'z-init']);
    expect(pod.spec?.initContainers?.[2]).toEqual({
      name: 'b-native',
      image: 'busybox',
      restartPolicy: 'Always',
      env: [{ name: 'IS_INJECTED', value: 'true' }],
    });
    expect(names(pod.spec?.containers)).toEqual(['app']);
    // Only native sidecars are kept up to date, so only they are listed.
    const hash = JSON.parse(pod.metadata!.annotations!['kruise.io/sidecarset-hash']!);
    expect(hash.s.sidecarList).toEqual(['b-native']);
  });
});

describe('SidecarSet injection: volumes, devices, env', () => {
  const appWithMounts = {
    name: 'app',
    image: 'nginx',
    env: [
      { name: 'POD_DIR', value: 'x' },
      { name: 'TZ', value: 'UTC' },
      { name: 'LANG', value: 'C' },
    ],
    volumeMounts: [
      { name: 'data', mountPath: '/data' },
      { name: 'logs', mountPath: '/var/log', subPathExpr: '$(POD_DIR)' },
    ],
    volumeDevices: [{ name: 'disk', devicePath: '/dev/xvda' }],
  };

  it('shares the app containers’ mounts (and the env their subPathExpr uses) and devices when enabled', async () => {
    const set = sidecarSet('s', {
      containers: [
        {
          name: 'shared',
          image: 'busybox',
          shareVolumePolicy: { type: 'enabled' },
          shareVolumeDevicePolicy: { type: 'enabled' },
          volumeMounts: [{ name: 'own', mountPath: '/data' }],
        },
        { name: 'private', image: 'busybox' },
      ],
      volumes: [
        { name: 'own', emptyDir: {} },
        { name: 'unused', emptyDir: {} },
      ],
    });
    const { pod } = await inject(webPod([appWithMounts]), [set]);
    const shared = pod.spec!.containers[1]!;
    // The sidecar's own mount at /data wins; /var/log comes from the app.
    expect(shared.volumeMounts).toEqual([
      { name: 'own', mountPath: '/data' },
      { name: 'logs', mountPath: '/var/log', subPathExpr: '$(POD_DIR)' },
    ]);
    expect(shared.env).toEqual([
      { name: 'IS_INJECTED', value: 'true' },
      { name: 'POD_DIR', value: 'x' },
    ]);
    expect(shared.volumeDevices).toEqual([{ name: 'disk', devicePath: '/dev/xvda' }]);
    expect(pod.spec!.containers[2]).toEqual({
      name: 'private',
      image: 'busybox',
      env: [{ name: 'IS_INJECTED', value: 'true' }],
    });
    // Only mounted SidecarSet volumes are added.
    expect(names(pod.spec?.volumes as { name: string }[])).toEqual(['own']);
  });

  it('does not share an injected container’s mounts, and keeps the pod’s volume of the same name', async () => {
    const set = sidecarSet('s', {
      containers: [
        {
          name: 'shared',
          image: 'busybox',
          shareVolumePolicy: { type: 'enabled' },
          volumeMounts: [{ name: 'cfg', mountPath: '/cfg' }],
        },
      ],
      volumes: [{ name: 'cfg', emptyDir: {} }],
    });
    const injected = {
      name: 'old-sidecar',
      image: 'x',
      env: [{ name: 'IS_INJECTED', value: 'true' }],
      volumeMounts: [{ name: 'y', mountPath: '/y' }],
    };
    const { pod } = await inject(
      webPod([app, injected], {
        spec: { containers: [], volumes: [{ name: 'cfg', configMap: { name: 'mine' } }] },
      }),
      [set],
    );
    expect(pod.spec!.containers.find((c) => c.name === 'shared')!.volumeMounts).toEqual([
      { name: 'cfg', mountPath: '/cfg' },
    ]);
    expect(pod.spec?.volumes).toEqual([{ name: 'cfg', configMap: { name: 'mine' } }]);
  });

  it('transfers env vars by sourceContainerName, envName and envNames, and from a label or annotation naming the source', async () => {
    const set = sidecarSet('s', {
      containers: [
        {
          name: 'sidecar',
          image: 'busybox',
          env: [{ name: 'TZ', value: 'own' }],
          transferEnv: [
            { sourceContainerName: 'app', envName: 'TZ' },
            { sourceContainerName: 'app', envNames: ['LANG', 'MISSING', 'POD_DIR'] },
            {
              sourceContainerNameFrom: { fieldRef: { fieldPath: "metadata.labels['main']" } },
              envName: 'ONLY_OTHER',
            },
            {
              sourceContainerNameFrom: { fieldRef: { fieldPath: "metadata.annotations['main']" } },
              envName: 'FROM_ANN',
            },
            { sourceContainerNameFrom: { fieldRef: { fieldPath: 'metadata.name' } }, envName: 'TZ' },
          ],
        },
      ],
    });
    const other = { name: 'other', image: 'x', env: [{ name: 'ONLY_OTHER', value: 'o' }] };
    const third = { name: 'third', image: 'x', env: [{ name: 'FROM_ANN', value: 't' }] };
    const pod0 = webPod([appWithMounts, other, third], {
      metadata: { labels: { app: 'web', main: 'other' }, annotations: { main: 'third' } },
    });
    const { pod } = await inject(pod0, [set]);
    expect(pod.spec!.containers[3]!.env).toEqual([
      { name: 'TZ', value: 'own' },
      { name: 'IS_INJECTED', value: 'true' },
      { name: 'LANG', value: 'C' },
      { name: 'POD_DIR', value: 'x' },
      { name: 'ONLY_OTHER', value: 'o' },
      { name: 'FROM_ANN', value: 't' },
    ]);
  });

  it('merges imagePullSecrets without duplicates', async () => {
    const sets = [
      sidecarSet('a', {
        containers: [{ name: 'a', image: 'x' }],
        imagePullSecrets: [{ name: 'reg' }, { name: 'shared' }],
      }),
      sidecarSet('b', { containers: [{ name: 'b', image: 'x' }], imagePullSecrets: [{ name: 'shared' }] }),
    ];
    const { pod } = await inject(
      webPod([app], { spec: { containers: [], imagePullSecrets: [{ name: 'mine' }, { name: 'mine' }] } }),
      sets,
    );
    expect(pod.spec?.imagePullSecrets).toEqual([{ name: 'mine' }, { name: 'reg' }, { name: 'shared' }]);
  });
});

describe('SidecarSet injection: annotations', () => {
  it('writes the hash, hash-without-image and injected-list annotations as upstream', async () => {
    const sets = [
      sidecarSet('b-set', { containers: [{ name: 'b', image: 'x' }] }),
      sidecarSet('a-set', {
        containers: [
          { name: 'a2', image: 'x' },
          { name: 'a1', image: 'x' },
        ],
      }),
    ];
    const { pod } = await inject(
      webPod([app], { metadata: { annotations: { 'kruise.io/sidecarset-injected-list': 'older' } } }),
      sets,
    );
    const a = pod.metadata!.annotations!;
    expect(a['kruise.io/sidecarset-hash']).toBe(
      '{"a-set":{"updateTimestamp":"2026-01-02T03:04:05Z","hash":"a-set-hash","sidecarSetName":"a-set","sidecarList":["a1","a2"],"controllerRevision":"a-set-rev1"},' +
        '"b-set":{"updateTimestamp":"2026-01-02T03:04:05Z","hash":"b-set-hash","sidecarSetName":"b-set","sidecarList":["b"],"controllerRevision":"b-set-rev1"}}',
    );
    expect(a['kruise.io/sidecarset-hash-without-image']).toBe(
      '{"a-set":{"updateTimestamp":"2026-01-02T03:04:05Z","hash":"a-set-hash-noimage","sidecarSetName":"a-set","sidecarList":["a1","a2"]},' +
        '"b-set":{"updateTimestamp":"2026-01-02T03:04:05Z","hash":"b-set-hash-noimage","sidecarSetName":"b-set","sidecarList":["b"]}}',
    );
    expect(a['kruise.io/sidecarset-injected-list']).toBe('a-set,b-set,older');
    expect(NOW.getUTCFullYear()).toBe(2026);
  });

  it('refuses a pod whose hash annotation cannot be read, in upstream’s words', async () => {
    const set = sidecarSet('s', { containers: [{ name: 'log', image: 'x' }] });
    const bad = webPod([app], { metadata: { annotations: { 'kruise.io/sidecarset-hash': '{"s":1}' } } });
    await expect(inject(bad, [set])).rejects.toThrow(
      'pod(default/web-0) invalid annotations[kruise.io/sidecarset-hash] value {"s":1}, unmarshal failed: json: cannot unmarshal number into Go value of type string',
    );
  });

  it('applies patchPodMetadata: Retain keeps present keys, Overwrite replaces, MergePatchJson merges', async () => {
    const set = sidecarSet('s', {
      containers: [{ name: 'log', image: 'x' }],
      patchPodMetadata: [
        { annotations: { keep: 'sidecar', add: 'new' } },
        { patchPolicy: 'Overwrite', annotations: { over: 'sidecar' } },
        { patchPolicy: 'MergePatchJson', annotations: { json: '{"b":2,"a":null}', fresh: '{"x":1}' } },
      ],
    });
    const { pod } = await inject(
      webPod([app], { metadata: { annotations: { keep: 'pod', over: 'pod', json: '{"a":1,"c":3}' } } }),
      [set],
    );
    const a = pod.metadata!.annotations!;
    expect([a.keep, a.add, a.over, JSON.parse(a.json!), a.fresh]).toEqual([
      'pod',
      'new',
      'sidecar',
      { c: 3, b: 2 },
      '{"x":1}',
    ]);
    const bad = webPod([app], { metadata: { annotations: { json: 'not json' } } });
    await expect(inject(bad, [set])).rejects.toThrow('Invalid JSON Document');
  });

  it('patches metadata even when the SidecarSet has no container to inject', async () => {
    const set = sidecarSet('s', { patchPodMetadata: [{ annotations: { only: 'meta' } }] });
    const { pod, changed } = await inject(webPod([app]), [set]);
    expect(changed).toBe(true);
    expect(pod.metadata?.annotations).toEqual({ only: 'meta' });
  });
});

describe('SidecarSet injection: hot upgrade', () => {
  it('injects x-1 working and x-2 with the empty image, their version env from the annotations', async () => {
    const set = sidecarSet('s', {
      containers: [
        {
          name: 'envoy',
          image: 'envoy:v1',
          upgradeStrategy: { upgradeType: 'HotUpgrade', hotUpgradeEmptyImage: 'empty:1' },
        },
      ],
    });
    const { pod } = await inject(webPod([app]), [set]);
    expect(pod.spec?.containers.map((c) => `${c.name}=${c.image}`)).toEqual([
      'app=nginx:1.25',
      'envoy-1=envoy:v1',
      'envoy-2=empty:1',
    ]);
    expect(pod.spec?.containers[1]?.env).toEqual([
      { name: 'IS_INJECTED', value: 'true' },
      {
        name: 'SIDECARSET_VERSION',
        valueFrom: {
          fieldRef: { fieldPath: "metadata.annotations['version.sidecarset.kruise.io/envoy-1']" },
        },
      },
      {
        name: 'SIDECARSET_VERSION_ALT',
        valueFrom: {
          fieldRef: { fieldPath: "metadata.annotations['versionalt.sidecarset.kruise.io/envoy-1']" },
        },
      },
    ]);
    const a = pod.metadata!.annotations!;
    expect([
      a['version.sidecarset.kruise.io/envoy-1'],
      a['versionalt.sidecarset.kruise.io/envoy-1'],
      a['version.sidecarset.kruise.io/envoy-2'],
      a['versionalt.sidecarset.kruise.io/envoy-2'],
    ]).toEqual(['1', '0', '0', '1']);
    expect(a['kruise.io/sidecarset-working-hotupgrade-container']).toBe('{"envoy":"envoy-1"}');
    expect(JSON.parse(a['kruise.io/sidecarset-hash']!).s.sidecarList).toEqual(['envoy']);
  });
});
