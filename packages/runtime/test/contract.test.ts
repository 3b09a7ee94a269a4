import type { ControlPlane } from '@kruise/control-plane';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  controllerOwnerRequest,
  Informer,
  type KubeClient,
  type KubeObject,
  Manager,
  newController,
  type Request,
  Resources,
  requestFor,
  requestKey,
  ScaleExpectations,
} from '../src/index.ts';
import { eventually, startEnv } from './env.ts';

let cp: ControlPlane;
let client: KubeClient;
beforeAll(async () => {
  ({ cp, client } = await startEnv());
  await client.create(Resources.Namespace, { metadata: { name: 'contract' } });
});
afterAll(() => cp.stop());

const keepName = (o: KubeObject): KubeObject => ({ metadata: { ...o.metadata, annotations: undefined } });

describe('the controller contract', () => {
  it('maps own events, owned objects (by controlling owner) and other kinds to requests, and settles expectations', async () => {
    const manager = new Manager({ client, gracefulShutdownMs: 2000 });
    const owners = manager.informers.informerFor({ resource: Resources.ConfigMap, namespace: 'contract' });
    const children = manager.informers.informerFor({ resource: Resources.Secret, namespace: 'contract' });
    const expectations = new ScaleExpectations(manager.expectationsOptions('owners'));
    const seen: Request[] = [];
    const builder = manager
      .newController({
        name: 'owners',
        reconcile: async (_ctx, req) => {
          seen.push(req);
          return undefined;
        },
      })
      .reconciles(owners)
      .owns(children, 'ConfigMap', { expectations })
      .watches(manager.informers.informerFor({ resource: Resources.Namespace }), {
        add: (ns) => ns.metadata?.name === 'contract' && { namespace: 'contract', name: 'from-namespace' },
      });
    expect(builder.name).toBe('owners');
    await manager.start();
    await eventually(() => seen.some((r) => r.name === 'from-namespace'));
    const owner = await client.create(Resources.ConfigMap, {
      metadata: { name: 'parent', namespace: 'contract' },
    });
    await eventually(() => seen.some((r) => r.name === 'parent' && r.namespace === 'contract'));
    expectations.expectCreation('contract/parent', 'child');
    expect(expectations.satisfied('contract/parent')).toBe(false);
    seen.length = 0;
    await client.create(Resources.Secret, {
      metadata: {
        name: 'child',
        namespace: 'contract',
        ownerReferences: [
          { apiVersion: 'v1', kind: 'ConfigMap', name: 'parent', uid: owner.metadata?.uid, controller: true },
        ],
      },
    });
    await client.create(Resources.Secret, {
      metadata: {
        name: 'not-controlled',
        namespace: 'contract',
        ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'other', uid: 'x' }],
      },
    });
    await eventually(() => expectations.satisfied('contract/parent'));
    // A marker: a Secret controlled by an owner named only here, created last. Its event comes after
    // the other Secrets' on the same watch, and the queue is FIFO, so once its owner is reconciled
    // the earlier events were mapped too — and the Secret that is not controlled queued nothing.
    await client.create(Resources.Secret, {
      metadata: {
        name: 'marker-child',
        namespace: 'contract',
        ownerReferences: [
          { apiVersion: 'v1', kind: 'ConfigMap', name: 'marker', uid: 'm', controller: true },
        ],
      },
    });
    await eventually(() => seen.some((r) => r.name === 'marker'));
    expect(seen.filter((r) => r.name !== 'marker')).toEqual([{ namespace: 'contract', name: 'parent' }]);
    expect(builder.controller.counts.success).toBeGreaterThanOrEqual(3);
    // An update that moves the child to another owner queues both; its deletion settles the new owner's expectation.
    const other = await client.create(Resources.ConfigMap, {
      metadata: { name: 'parent2', namespace: 'contract' },
    });
    await eventually(() => seen.some((r) => r.name === 'parent2'));
    seen.length = 0;
    await client.mergePatch(Resources.Secret, 'contract', 'child', {
      metadata: {
        ownerReferences: [
          {
            apiVersion: 'v1',
            kind: 'ConfigMap',
            name: 'parent2',
            uid: other.metadata?.uid,
            controller: true,
          },
        ],
      },
    });
    await eventually(() => seen.some((r) => r.name === 'parent') && seen.some((r) => r.name === 'parent2'));
    expectations.expectDeletion('contract/parent2', 'child');
    await client.delete(Resources.Secret, 'contract', 'child');
    await eventually(() => expectations.satisfied('contract/parent2'));
    await manager.stop();
  });

  it('declares a controller without a manager (kruise-daemon) whose watch queues each event after delayMs', async () => {
    const informer = new Informer(client, {
      resource: Resources.ConfigMap,
      namespace: 'contract',
      fieldSelector: 'metadata.name=delayed',
    });
    const seen: Request[] = [];
    const { controller } = newController({
      name: 'delayed',
      reconcile: async (_ctx, req) => {
        seen.push(req);
      },
    }).watches(informer, (o) => requestFor(o), { delayMs: 300 });
    // A handler registered after the controller's sees the queue as the event left it.
    const readyAtEvent: number[] = [];
    informer.addEventHandler({ add: () => readyAtEvent.push(controller.queue.len()) });
    informer.start();
    await client.create(Resources.ConfigMap, { metadata: { name: 'delayed', namespace: 'contract' } });
    await eventually(() => readyAtEvent.length === 1);
    expect(readyAtEvent).toEqual([0]); // not queued yet: it waits its delay
    await eventually(() => controller.queue.len() === 1);
    controller.start();
    await eventually(() => seen.length === 1);
    expect(seen).toEqual([{ namespace: 'contract', name: 'delayed' }]);
    await controller.stop(1000);
    await informer.stop();
  });

  it('reads the controlling owner of a kind only', () => {
    const obj = {
      metadata: {
        namespace: 'ns',
        ownerReferences: [
          { apiVersion: 'apps.kruise.io/v1alpha1', kind: 'CloneSet', name: 'not-controller', uid: 'a' },
          { apiVersion: 'apps.kruise.io/v1alpha1', kind: 'CloneSet', name: 'cs', uid: 'b', controller: true },
        ],
      },
    };
    expect(controllerOwnerRequest(obj, 'CloneSet')).toEqual({ namespace: 'ns', name: 'cs' });
    expect(controllerOwnerRequest(obj, 'StatefulSet')).toBeUndefined();
    expect(requestKey({ namespace: '', name: 'node-1' })).toBe('node-1');
  });

  it('trims a shared cache only while every user asks for the same trim', async () => {
    await client.create(Resources.ConfigMap, {
      metadata: { name: 'annotated', namespace: 'contract', annotations: { a: 'b' } },
    });
    const trimmed = new Manager({ client });
    const a = trimmed.informers.informerFor({
      resource: Resources.ConfigMap,
      namespace: 'contract',
      transform: keepName,
    });
    trimmed.informers.informerFor({
      resource: Resources.ConfigMap,
      namespace: 'contract',
      transform: keepName,
    });
    const whole = new Manager({ client });
    const b = whole.informers.informerFor({
      resource: Resources.ConfigMap,
      namespace: 'contract',
      transform: keepName,
    });
    whole.informers.informerFor({ resource: Resources.ConfigMap, namespace: 'contract' });
    await Promise.all([trimmed.start(), whole.start()]);
    expect(a.get('contract/annotated')?.metadata?.annotations).toBeUndefined();
    expect(b.get('contract/annotated')?.metadata?.annotations).toEqual({ a: 'b' });
    expect(() =>
      trimmed.informers.informerFor({ resource: Resources.ConfigMap, namespace: 'contract' }),
    ).toThrow('informer for configmaps already caches trimmed objects');
    await Promise.all([trimmed.stop(), whole.stop()]);
  });
});
