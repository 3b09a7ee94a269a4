import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KruiseResources } from '@kruise/api';
import type { ControlPlane } from '@kruise/control-plane';
import { type KubeClient, Resources } from '@kruise/runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { kubectl as runKubectl } from '../../../test/support/kubectl.ts';
import { startConversionWebhook, startEnv as startRuntimeEnv } from '../../runtime/test/env.ts';
import type { ManagerApp } from '../src/index.ts';
import { kruiseConversions } from '../src/webhooks/conversion/index.ts';
import { startEnv } from './env.ts';

/**
 * Advanced StatefulSet served at v1alpha1 and v1beta1 through the control plane and kubectl, with
 * kruise-manager converting: what one version writes, the other reads, and nothing is lost.
 */
const ALPHA = 'statefulsets.v1alpha1.apps.kruise.io';
const BETA = 'statefulsets.v1beta1.apps.kruise.io';
const ANNOTATION = 'apps.kruise.io/v1beta1-only-spec';

const manifest = (apiVersion: string, name: string, spec: Record<string, unknown>) =>
  stringify({
    apiVersion,
    kind: 'StatefulSet',
    metadata: { name, namespace: 'default' },
    spec: {
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: { containers: [{ name: 'app', image: 'nginx:1.25' }] },
      },
      ...spec,
    },
  });

describe('Advanced StatefulSet at both versions (control plane, kruise-manager, kubectl)', () => {
  let cp: ControlPlane;
  let app: ManagerApp;
  let dir: string;
  let kubeconfig: string;
  const kubectl = async (args: string[], input?: string) => {
    const r = await runKubectl(kubeconfig, args, input);
    if (r.status !== 0) throw new Error(`kubectl ${args.join(' ')}: ${r.stderr}`);
    return r.stdout;
  };
  const getJson = async (resource: string, name: string) =>
    JSON.parse(await kubectl(['get', resource, name, '-n', 'default', '-o', 'json']));

  beforeAll(async () => {
    ({ cp, app } = await startEnv());
    dir = mkdtempSync(join(tmpdir(), 'asts-versions-'));
    kubeconfig = join(dir, 'kubeconfig');
    cp.writeKubeconfig(kubeconfig);
  });
  afterAll(async () => {
    await app?.stop();
    await cp?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('serves an object created at v1alpha1 at both versions', async () => {
    await kubectl(['apply', '-f', '-'], manifest('apps.kruise.io/v1alpha1', 'made-alpha', { replicas: 2 }));
    const beta = await getJson(BETA, 'made-alpha');
    expect(beta.apiVersion).toBe('apps.kruise.io/v1beta1');
    expect(beta.spec.replicas).toBe(2);
    const alpha = await getJson(ALPHA, 'made-alpha');
    expect(alpha.apiVersion).toBe('apps.kruise.io/v1alpha1');
    expect(alpha.spec.template.spec.containers[0].image).toBe('nginx:1.25');
    expect(alpha.metadata.uid).toBe(beta.metadata.uid);
  });

  it('keeps reserveOrdinals through a v1alpha1 read, apply, edit and scale', async () => {
    await kubectl(
      ['create', '-f', '-'],
      manifest('apps.kruise.io/v1beta1', 'made-beta', {
        replicas: 3,
        reserveOrdinals: [1, '3-4'],
        lifecycle: { preDelete: { labelsHandler: { hold: 'true' } } },
      }),
    );
    // at v1alpha1 the v1beta1-only fields are not in spec; they wait in an annotation
    const alpha = await getJson(ALPHA, 'made-beta');
    expect(alpha.spec.reserveOrdinals).toBeUndefined();
    expect(JSON.parse(alpha.metadata.annotations[ANNOTATION])).toMatchObject({
      reserveOrdinals: [1, '3-4'],
      lifecycle: { preDelete: { labelsHandler: { hold: 'true' } } },
    });
    const kept = async (replicas: number) => {
      const beta = await getJson(BETA, 'made-beta');
      expect(beta.spec.replicas).toBe(replicas);
      expect(beta.spec.reserveOrdinals).toEqual([1, '3-4']);
      expect(beta.spec.lifecycle).toEqual({ preDelete: { labelsHandler: { hold: 'true' } } });
      expect(beta.metadata.annotations?.[ANNOTATION]).toBeUndefined();
    };
    // a v1alpha1 manifest applied over it (it knows nothing of reserveOrdinals)
    await kubectl(['apply', '-f', '-'], manifest('apps.kruise.io/v1alpha1', 'made-beta', { replicas: 4 }));
    await kept(4);
    // kubectl edit at v1alpha1
    const editor = join(dir, 'editor.sh');
    writeFileSync(editor, `#!/bin/sh\nsed -i 's/^  replicas: 4$/  replicas: 5/' "$1"\n`);
    chmodSync(editor, 0o755);
    process.env.KUBE_EDITOR = editor;
    try {
      await kubectl(['edit', ALPHA, 'made-beta', '-n', 'default']);
    } finally {
      delete process.env.KUBE_EDITOR;
    }
    await kept(5);
    // the scale subresource at v1alpha1
    await kubectl(['scale', ALPHA, 'made-beta', '-n', 'default', '--replicas=6']);
    await kept(6);
  });

  it('lists by short name with the wide CONTAINERS and IMAGES columns', async () => {
    const out = await kubectl(['get', 'asts', '-n', 'default', '-o', 'wide']);
    const [header, ...rows] = out.trim().split('\n');
    expect(header!.split(/\s+/)).toEqual([
      'NAME',
      'DESIRED',
      'CURRENT',
      'UPDATED',
      'READY',
      'AGE',
      'CONTAINERS',
      'IMAGES',
    ]);
    const row = rows.find((r) => r.startsWith('made-alpha '))!.split(/\s+/);
    expect([row[1], row.at(-2), row.at(-1)]).toEqual(['2', 'app', 'nginx:1.25']);
    expect(await kubectl(['get', 'asts', '-n', 'default', '-o', 'name'])).toContain(
      'statefulset.apps.kruise.io/made-beta',
    );
  });
});

/**
 * The status at v1alpha1: kube-apiserver reads the stored object at the version of the request, so
 * a write at v1alpha1 keeps the status v1alpha1 has and drops v1beta1's own status fields until
 * the controller's next status update. The conversion webhook alone here (no controller to put
 * them back).
 */
describe('a write at v1alpha1 and the status (the conversion webhook alone)', () => {
  let cp: ControlPlane;
  let client: KubeClient;
  let webhook: Awaited<ReturnType<typeof startConversionWebhook>>;

  beforeAll(async () => {
    ({ cp, client } = await startRuntimeEnv());
    await client.create(Resources.Namespace, { metadata: { name: 'kruise-system' } });
    await client.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {
      body: parse(
        readFileSync(
          new URL('../../../deploy/crds/apps.kruise.io_statefulsets.yaml', import.meta.url),
          'utf8',
        ),
      ),
    });
    const conversions = kruiseConversions();
    webhook = await startConversionWebhook(client, (r) => conversions.review(r));
  });
  afterAll(async () => {
    await webhook?.stop();
    await cp?.stop();
  });

  it('keeps the status fields v1alpha1 has and drops the others, as kube-apiserver does', async () => {
    const sts = parse(manifest('apps.kruise.io/v1beta1', 'web', { replicas: 1 }));
    await client.create(KruiseResources.StatefulSet, sts);
    const status = {
      replicas: 1,
      readyReplicas: 1,
      availableReplicas: 1,
      currentReplicas: 1,
      updatedReplicas: 1,
      updatedReadyReplicas: 1,
    };
    await client.mergePatchStatus(KruiseResources.StatefulSet, 'default', 'web', { status });
    const alphaRef = { ...KruiseResources.StatefulSet, version: 'v1alpha1' };
    const alpha = await client.get(alphaRef, 'default', 'web');
    expect(alpha.status.updatedReadyReplicas).toBeUndefined();
    await client.update(alphaRef, { ...alpha, spec: { ...alpha.spec, replicas: 2 } });
    const beta = await client.get(KruiseResources.StatefulSet, 'default', 'web');
    expect(beta.spec.replicas).toBe(2);
    const { updatedReadyReplicas: _dropped, ...kept } = status;
    expect(beta.status).toEqual(kept);
  });
});
