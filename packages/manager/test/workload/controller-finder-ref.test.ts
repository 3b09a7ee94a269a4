import { NoKindMatchError } from '@kruise/runtime';
import { describe, expect, it } from 'vitest';
import {
  type FinderSources,
  newControllerFinder,
  REPLICAS_UNKNOWN,
} from '../../src/workload/controllerfinder/index.ts';
import { type FinderWorld, memorySources, obj, ownerRef } from './finder-sources.ts';

const selector = { matchLabels: { app: 'web' } };
const deployment = obj('apps/v1', 'Deployment', 'web', { spec: { replicas: 3, selector } });
const ownedRs = obj('apps/v1', 'ReplicaSet', 'web-abc', {
  metadata: { ownerReferences: [ownerRef(deployment)], labels: { app: 'web' } },
  spec: { replicas: 3, selector },
});
const bareRs = obj('apps/v1', 'ReplicaSet', 'bare', { spec: { replicas: 2, selector } });
const gone = obj('apps/v1', 'Deployment', 'gone', { metadata: { uid: 'uid-gone' } });
const orphanedRs = obj('apps/v1', 'ReplicaSet', 'orphaned', {
  metadata: { ownerReferences: [ownerRef(gone)] },
  spec: { replicas: 1, selector },
});
const rc = obj('v1', 'ReplicationController', 'old', { spec: { replicas: 4, selector: { app: 'old' } } });
const sts = obj('apps/v1', 'StatefulSet', 'db', { spec: { replicas: 5, selector } });
const cloneSet = obj('apps.kruise.io/v1alpha1', 'CloneSet', 'cs', {
  metadata: { annotations: { team: 'a' }, labels: { tier: 'x' }, resourceVersion: '9' },
  spec: { replicas: 6, selector },
});
const asts = obj('apps.kruise.io/v1beta1', 'StatefulSet', 'asts', {
  spec: { replicas: 2, selector, reserveOrdinals: [1, '3-5'] },
});
const gameSet = obj('game.io/v1', 'GameSet', 'g', { spec: { replicas: 7 } });
const widget = obj('example.com/v1', 'Widget', 'w', { spec: { size: 9 } });
const daemonSet = obj('apps/v1', 'DaemonSet', 'agent', { metadata: { labels: { app: 'agent' } } });

const world = (extra: Partial<FinderWorld> = {}): FinderWorld => ({
  objects: [deployment, ownedRs, bareRs, orphanedRs, rc, sts, cloneSet, asts, gameSet, widget, daemonSet],
  scales: [
    {
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      scale: {
        metadata: { name: 'w', namespace: 'ns', uid: 'uid-w', resourceVersion: '4' },
        spec: { replicas: 9 },
        status: { replicas: 1, selector: 'app=web,tier in (b,a)' },
      },
    },
  ],
  ...extra,
});

const find = (
  w: FinderWorld | FinderSources,
  ref: { apiVersion: string; kind: string; name: string; uid?: string },
) => newControllerFinder('objects' in w ? memorySources(w) : w).scaleAndSelectorForRef(ref, 'ns');

describe('scaleAndSelectorForRef: built-in and Kruise workloads', () => {
  it('resolves a Deployment to its replicas, selector and metadata', async () => {
    expect(await find(world(), { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' })).toEqual({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      name: 'web',
      uid: 'uid-web',
      scale: 3,
      selector,
      metadata: deployment.metadata,
    });
  });

  it('resolves a ReplicaSet a Deployment controls to that Deployment, others to themselves', async () => {
    const viaRs = await find(world(), { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web-abc' });
    expect(viaRs).toMatchObject({ kind: 'Deployment', name: 'web', uid: 'uid-web', scale: 3 });
    const rs = await find(world(), { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'bare' });
    expect(rs).toMatchObject({
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      uid: 'uid-bare',
      scale: 2,
      selector,
    });
  });

  it('gives a ReplicaSet whose Deployment is gone as an object of unknown scale (upstream’s last step)', async () => {
    // ReplicaSets have a scale subresource, but upstream asks it of no built-in or Kruise kind
    const w = world();
    w.scales!.push({
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      scale: { metadata: { name: 'orphaned', namespace: 'ns', uid: 'uid-orphaned' }, spec: { replicas: 1 } },
    });
    const rs = await find(w, { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'orphaned' });
    expect(rs).toMatchObject({ kind: 'ReplicaSet', uid: 'uid-orphaned', scale: REPLICAS_UNKNOWN });
  });

  it('resolves a ReplicationController without a selector, as upstream', async () => {
    const found = await find(world(), { apiVersion: 'v1', kind: 'ReplicationController', name: 'old' });
    expect(found).toMatchObject({ apiVersion: 'v1', kind: 'ReplicationController', scale: 4 });
    expect(found?.selector).toBeUndefined();
  });

  it('resolves an apps/v1 StatefulSet and a CloneSet at any version of its group', async () => {
    expect(await find(world(), { apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'db' })).toMatchObject({
      scale: 5,
      uid: 'uid-db',
    });
    for (const apiVersion of ['apps.kruise.io/v1alpha1', 'apps.kruise.io/v1beta1']) {
      const found = await find(world(), { apiVersion, kind: 'CloneSet', name: 'cs' });
      expect(found).toMatchObject({ apiVersion: 'apps.kruise.io/v1alpha1', kind: 'CloneSet', scale: 6 });
      expect(found?.metadata).toMatchObject({
        annotations: { team: 'a' },
        labels: { tier: 'x' },
        resourceVersion: '9',
      });
    }
  });

  it('resolves an Advanced StatefulSet with its reserved ordinals, ranges expanded', async () => {
    const found = await find(world(), {
      apiVersion: 'apps.kruise.io/v1alpha1',
      kind: 'StatefulSet',
      name: 'asts',
    });
    expect(found).toMatchObject({ apiVersion: 'apps.kruise.io/v1beta1', scale: 2, selector });
    expect(found?.reserveOrdinals).toEqual(new Set([1, 3, 4, 5]));
    const apps = await find(world(), { apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'asts' });
    expect(apps).toBeUndefined();
  });

  it('finds nothing for a missing workload, or one whose uid is not the reference’s', async () => {
    expect(await find(world(), { apiVersion: 'apps/v1', kind: 'Deployment', name: 'nope' })).toBeUndefined();
    expect(
      await find(world(), { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', uid: 'uid-old' }),
    ).toBeUndefined();
    expect(
      await find(world(), { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', uid: 'uid-web' }),
    ).toMatchObject({ name: 'web' });
  });

  it('reads no configuration, scale or object from the API for a workload its cache has', async () => {
    const sources = memorySources(world());
    await find(sources, { apiVersion: 'apps.kruise.io/v1alpha1', kind: 'CloneSet', name: 'cs' });
    expect(sources.apiReads).toEqual([]);
  });
});

describe('scaleAndSelectorForRef: other kinds', () => {
  const whitelisted = (value: string) =>
    world({ configuration: { PPS_Watch_Custom_Workload_WhiteList: value } });

  it('resolves a whitelisted StatefulSet-like workload to its spec.replicas, without a selector', async () => {
    const w = whitelisted('{"workloads":[{"Group":"game.io","Kind":"GameSet"}]}');
    const found = await find(w, { apiVersion: 'game.io/v1', kind: 'GameSet', name: 'g' });
    expect(found).toMatchObject({ apiVersion: 'game.io/v1', kind: 'GameSet', uid: 'uid-g', scale: 7 });
    expect(found?.selector).toBeUndefined();
  });

  it('counts 0 replicas for a StatefulSet-like workload whose spec.replicas is no integer', async () => {
    const w = whitelisted('{"workloads":[{"Group":"example.com","Kind":"Widget"}]}');
    expect(await find(w, { apiVersion: 'example.com/v1', kind: 'Widget', name: 'w' })).toMatchObject({
      scale: 0,
    });
  });

  it('fails when the whitelist is not JSON', async () => {
    await expect(
      find(whitelisted('{'), { apiVersion: 'game.io/v1', kind: 'GameSet', name: 'g' }),
    ).rejects.toThrow(SyntaxError);
  });

  it('resolves another kind through its scale subresource, the selector string parsed', async () => {
    const found = await find(world(), { apiVersion: 'example.com/v1', kind: 'Widget', name: 'w' });
    expect(found).toEqual({
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      name: 'w',
      uid: 'uid-w',
      scale: 9,
      selector: {
        matchLabels: { app: 'web' },
        matchExpressions: [{ key: 'tier', operator: 'In', values: ['a', 'b'] }],
      },
      metadata: { name: 'w', namespace: 'ns', uid: 'uid-w', resourceVersion: '4' },
    });
  });

  it('fails on a scale subresource whose selector does not parse', async () => {
    const w = world();
    w.scales![0]!.scale.status!.selector = 'app in (web';
    await expect(find(w, { apiVersion: 'example.com/v1', kind: 'Widget', name: 'w' })).rejects.toThrow(
      /couldn't parse the selector string "app in \(web"/,
    );
  });

  it('gives any other object with an unknown scale and its metadata', async () => {
    const found = await find(world(), { apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'agent' });
    expect(found).toEqual({
      apiVersion: 'apps/v1',
      kind: 'DaemonSet',
      name: 'agent',
      uid: 'uid-agent',
      scale: REPLICAS_UNKNOWN,
      metadata: daemonSet.metadata,
    });
    expect(
      await find(world(), { apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'agent', uid: 'x' }),
    ).toBeUndefined();
    expect(await find(world(), { apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'none' })).toBeUndefined();
  });

  it('fails for a kind the API does not serve', async () => {
    const w = world({ unserved: ['nowhere.io/Thing'] });
    await expect(find(w, { apiVersion: 'nowhere.io/v1', kind: 'Thing', name: 't' })).rejects.toThrow(
      NoKindMatchError,
    );
  });

  it('passes on a source’s failure', async () => {
    const sources = memorySources(world());
    sources.workload = async () => {
      throw new Error('etcdserver: request timed out');
    };
    await expect(find(sources, { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' })).rejects.toThrow(
      'etcdserver: request timed out',
    );
  });
});
