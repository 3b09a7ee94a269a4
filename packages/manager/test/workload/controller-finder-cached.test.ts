import { KruiseResources } from '@kruise/api';
import { ControlPlane } from '@kruise/control-plane';
import {
  KubeClient,
  type KubeObject,
  Manager,
  NoKindMatchError,
  type ResourceRef,
  Resources,
  silentLogger,
} from '@kruise/runtime';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { widgetCrd } from '../../../../test/support/widget-crd.ts';
import {
  type ControllerFinder,
  cachedFinderSources,
  newControllerFinder,
  REPLICAS_UNKNOWN,
} from '../../src/workload/controllerfinder/index.ts';
import { installCrds } from '../env.ts';

const NS = 'apps';
const DaemonSet: ResourceRef = {
  group: 'apps',
  version: 'v1',
  plural: 'daemonsets',
  kind: 'DaemonSet',
  namespaced: true,
};
const Widget: ResourceRef = {
  group: 'example.com',
  version: 'v1',
  plural: 'widgets',
  kind: 'Widget',
  namespaced: true,
};

/** A CRD with status and scale subresources, its selector in status.selector. */
const WIDGET_CRD = widgetCrd({
  subresources: {
    status: {},
    scale: {
      specReplicasPath: '.spec.replicas',
      statusReplicasPath: '.status.replicas',
      labelSelectorPath: '.status.selector',
    },
  },
});

const template = (app: string) => ({
  metadata: { labels: { app } },
  spec: { containers: [{ name: 'main', image: 'nginx:1.25' }] },
});
const selector = (app: string) => ({ matchLabels: { app } });
const controllerRef = (o: KubeObject) => ({
  apiVersion: o.apiVersion!,
  kind: o.kind!,
  name: o.metadata!.name!,
  uid: o.metadata!.uid!,
  controller: true,
});
const names = (pods: Pod[]) => pods.map((p) => p.metadata?.name).sort();

describe('the controller finder over the manager’s caches and the API', () => {
  let cp: ControlPlane;
  let client: KubeClient;
  let manager: Manager;
  let finder: ControllerFinder;
  let early: Promise<unknown>;
  const made: Record<string, KubeObject> = {};

  const create = async (r: ResourceRef, body: KubeObject) => {
    const o = await client.create(r, { ...body, metadata: { namespace: NS, ...body.metadata } });
    made[o.metadata!.name!] = o;
    return o;
  };
  const pod = (name: string, owner?: KubeObject, labels: Record<string, string> = {}) =>
    create(Resources.Pod, {
      metadata: { name, labels, ...(owner ? { ownerReferences: [controllerRef(owner)] } : {}) },
      spec: template('x').spec,
    });
  /** Leaves a finalizer on the object and deletes it: it stays, being deleted. */
  const deleteSlowly = async (r: ResourceRef, name: string) => {
    await client.mergePatch(r, NS, name, { metadata: { finalizers: ['example.com/hold'] } });
    await client.delete(r, NS, name);
  };

  beforeAll(async () => {
    // The world is built by hand: no scheduler, no ReplicaSet or Deployment controller acts on it.
    cp = await ControlPlane.start({ scheduler: false, replicaSets: false });
    client = KubeClient.fromString(cp.kubeconfig());
    await installCrds(client);
    await client.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {
      body: WIDGET_CRD,
    });
    for (const name of [NS, 'kruise-system'])
      await client.create(Resources.Namespace, { metadata: { name } });

    const web = await create(Resources.Deployment, {
      metadata: { name: 'web' },
      spec: { replicas: 3, selector: selector('web'), template: template('web') },
    });
    const rs = (name: string) =>
      create(Resources.ReplicaSet, {
        metadata: { name, labels: { app: 'web' }, ownerReferences: [controllerRef(web)] },
        spec: { replicas: 1, selector: selector('web'), template: template('web') },
      });
    await pod('web-new-1', await rs('web-new'));
    await pod('web-old-1', await rs('web-old'));
    await deleteSlowly(Resources.ReplicaSet, 'web-old');
    const cs = await create(KruiseResources.CloneSet, {
      metadata: { name: 'cs', annotations: { team: 'a' } },
      spec: { replicas: 2, selector: selector('cs'), template: template('cs') },
    });
    await pod('cs-1', cs);
    const done = await pod('cs-2', cs);
    await client.mergePatchStatus(Resources.Pod, NS, done.metadata!.name!, {
      status: { phase: 'Succeeded' },
    });
    await create(KruiseResources.StatefulSet, {
      metadata: { name: 'asts' },
      spec: {
        replicas: 2,
        reserveOrdinals: [1, '3-4'],
        selector: selector('asts'),
        template: template('asts'),
      },
    });
    await create(Resources.StatefulSet, {
      metadata: { name: 'db' },
      spec: { replicas: 4, serviceName: 'db', selector: selector('db'), template: template('db') },
    });
    await create(Resources.ReplicationController, {
      metadata: { name: 'old' },
      spec: { replicas: 5, selector: { app: 'old' }, template: template('old') },
    });
    await create(Widget, {
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      metadata: { name: 'w' },
      spec: { replicas: 2 },
    });
    await client.mergePatchStatus(Widget, NS, 'w', {
      status: { replicas: 0, selector: 'app=widget,tier in (a,b)' },
    });
    await create(DaemonSet, {
      metadata: { name: 'agent' },
      spec: { selector: selector('agent'), template: template('agent') },
    });
    await pod('loose-1', undefined, { app: 'widget', tier: 'a' });
    await pod('loose-2', undefined, { app: 'widget', tier: 'c' });
    // of the same owner and labels, in another namespace: none of the finder's answers
    await client.create(Resources.Pod, {
      metadata: {
        name: 'elsewhere',
        namespace: 'default',
        labels: { app: 'widget', tier: 'a' },
        ownerReferences: [controllerRef(cs)],
      },
      spec: template('x').spec,
    });

    manager = new Manager({ client, logger: silentLogger });
    finder = newControllerFinder(cachedFinderSources(manager, 'kruise-system'));
    // asked before any cache has listed: the answer must wait for the caches, not be "not found"
    early = finder.scaleAndSelectorForRef({ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }, NS);
    manager.informers.start();
  }, 60_000);

  afterAll(async () => {
    await manager?.informers.stop();
    client?.close();
    await cp?.stop();
  });

  it('answers a question asked before the caches synced once they have', async () => {
    expect(await early).toMatchObject({
      kind: 'Deployment',
      name: 'web',
      uid: made.web!.metadata!.uid,
      scale: 3,
    });
  });

  it('resolves a pod’s ReplicaSet to its Deployment', async () => {
    const found = await finder.scaleAndSelectorForRef(
      { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web-new', uid: made['web-new']!.metadata!.uid },
      NS,
    );
    expect(found).toMatchObject({ kind: 'Deployment', name: 'web', scale: 3, selector: selector('web') });
  });

  it('resolves a CloneSet, an Advanced StatefulSet, a StatefulSet and a ReplicationController', async () => {
    const at = (apiVersion: string, kind: string, name: string) =>
      finder.scaleAndSelectorForRef({ apiVersion, kind, name }, NS);
    const cs = await at('apps.kruise.io/v1beta1', 'CloneSet', 'cs');
    expect(cs).toMatchObject({ kind: 'CloneSet', scale: 2, metadata: { annotations: { team: 'a' } } });
    const asts = await at('apps.kruise.io/v1alpha1', 'StatefulSet', 'asts');
    expect(asts).toMatchObject({ apiVersion: 'apps.kruise.io/v1beta1', scale: 2 });
    expect(asts?.reserveOrdinals).toEqual(new Set([1, 3, 4]));
    expect(await at('apps/v1', 'StatefulSet', 'db')).toMatchObject({ scale: 4, uid: made.db!.metadata!.uid });
    expect(await at('v1', 'ReplicationController', 'old')).toMatchObject({ scale: 5 });
    expect(await at('apps/v1', 'StatefulSet', 'cs')).toBeUndefined();
  });

  it('reads another kind through its scale subresource, and any object else', async () => {
    const widget = await finder.scaleAndSelectorForRef(
      { apiVersion: 'example.com/v1', kind: 'Widget', name: 'w' },
      NS,
    );
    expect(widget).toMatchObject({
      uid: made.w!.metadata!.uid,
      scale: 2,
      selector: {
        matchLabels: { app: 'widget' },
        matchExpressions: [{ key: 'tier', operator: 'In', values: ['a', 'b'] }],
      },
    });
    // apps/v1 DaemonSets have no scale subresource
    const agent = await finder.scaleAndSelectorForRef(
      { apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'agent' },
      NS,
    );
    expect(agent).toMatchObject({
      kind: 'DaemonSet',
      uid: made.agent!.metadata!.uid,
      scale: REPLICAS_UNKNOWN,
    });
    await expect(
      finder.scaleAndSelectorForRef({ apiVersion: 'nowhere.io/v1', kind: 'Thing', name: 't' }, NS),
    ).rejects.toThrow(NoKindMatchError);
  });

  it('lists a workload’s pods and replicas', async () => {
    const dep = await finder.podsForRef(
      { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
      NS,
      false,
    );
    expect({ replicas: dep.replicas, pods: names(dep.pods) }).toEqual({ replicas: 3, pods: ['web-new-1'] });
    const cs = await finder.podsForRef(
      { apiVersion: 'apps.kruise.io/v1alpha1', kind: 'CloneSet', name: 'cs' },
      NS,
      true,
    );
    expect(names(cs.pods)).toEqual(['cs-1']);
    const widget = await finder.podsForRef(
      { apiVersion: 'example.com/v1', kind: 'Widget', name: 'w' },
      NS,
      false,
    );
    expect({ replicas: widget.replicas, pods: names(widget.pods) }).toEqual({
      replicas: 2,
      pods: ['loose-1'],
    });
  });

  it('adds up the scales of the pods’ controllers, each once', async () => {
    // The pods made here (the control plane's StatefulSet controller also runs db's pods).
    const pods = (await client.list<Pod & KubeObject>(Resources.Pod, { namespace: NS })).items.filter(
      (p) =>
        !p.metadata?.ownerReferences?.some((r) => r.apiVersion === 'apps/v1' && r.kind === 'StatefulSet'),
    );
    expect(await finder.expectedScaleForPods(pods)).toBe(3 + 2);
  });

  it('sees a workload being deleted, and a whitelist written after start', async () => {
    await deleteSlowly(KruiseResources.CloneSet, 'cs');
    const ref = { apiVersion: 'apps.kruise.io/v1alpha1', kind: 'CloneSet', name: 'cs' };
    await expect.poll(() => finder.podsForRef(ref, NS, false)).toEqual({ pods: [], replicas: 0 });
    await client.create(Resources.ConfigMap, {
      metadata: { name: 'kruise-configuration', namespace: 'kruise-system' },
      data: {
        PPS_Watch_Custom_Workload_WhiteList: '{"workloads":[{"Group":"example.com","Kind":"Widget"}]}',
      },
    });
    const widget = await finder.podsForRef(
      { apiVersion: 'example.com/v1', kind: 'Widget', name: 'w' },
      NS,
      false,
    );
    // StatefulSet-like: spec.replicas, no selector, so no pods but its own
    expect(widget).toEqual({ pods: [], replicas: 2 });
  });
});
