import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KUBECTL_NEWEST, kubectlPath } from '../../../test/support/kube-tools.ts';
import type { ControlPlane } from '../src/index.ts';
import { rawRequest, runKubectl, startControlPlane } from './helpers.ts';

const deploy = join(dirname(fileURLToPath(import.meta.url)), '../../../deploy');
/** A manifest of deploy/ moved to the default namespace (the test does not create kruise-system). */
const manifest = (file: string) =>
  readFileSync(join(deploy, file), 'utf8').replace(/namespace: kruise-system/g, 'namespace: default');

describe("built-in kinds held to Kubernetes' schemas", () => {
  let cp: ControlPlane;
  let dir: string;
  const kubectl = (args: string[], input?: string) =>
    runKubectl(kubectlPath(KUBECTL_NEWEST), join(dir, 'kubeconfig'), args, input);

  beforeAll(async () => {
    cp = await startControlPlane();
    dir = mkdtempSync(join(tmpdir(), 'schemas-'));
    cp.writeKubeconfig(join(dir, 'kubeconfig'));
  });
  afterAll(async () => {
    await cp?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('kubectl explain shows built-in fields, their descriptions and enums', async () => {
    const containers = await kubectl(['explain', 'pod.spec.containers']);
    expect(containers.code).toBe(0);
    expect(containers.out).toContain('FIELD: containers <[]Container>');
    expect(containers.out).toContain('List of containers belonging to the pod.');
    expect(containers.out).toMatch(/\n {2}imagePullPolicy\t<string>\n/);
    expect(containers.out).toMatch(/\n {2}name\t<string> -required-\n/);
    const strategy = await kubectl(['explain', 'deployment.spec.strategy.type']);
    expect(strategy.out).toMatch(/ENUM:\n\s+Recreate\n\s+RollingUpdate\n/);
    const replicas = await kubectl(['explain', 'statefulset.spec.replicas']);
    expect(replicas.out).toContain('FIELD: replicas <integer>');
  });

  it('refuses a typo in deploy/ Deployment and DaemonSet as a real cluster does (kubectl validates strictly)', async () => {
    const deployment = await kubectl(
      ['apply', '-f', '-'],
      manifest('manager/deployment.yaml').replace('imagePullPolicy:', 'imagePulPolicy:'),
    );
    expect(deployment.code).not.toBe(0);
    expect(deployment.err).toContain(
      'Error from server (BadRequest): error when creating "STDIN": Deployment in version "v1" cannot be handled as a Deployment: strict decoding error: unknown field "spec.template.spec.containers[0].imagePulPolicy"',
    );
    const daemonset = await kubectl(
      ['apply', '-f', '-'],
      manifest('daemon/daemonset.yaml').replace(/\n( +)containers:/, '\n$1containerz:'),
    );
    expect(daemonset.code).not.toBe(0);
    expect(daemonset.err).toContain(
      'DaemonSet in version "v1" cannot be handled as a DaemonSet: strict decoding error: unknown field "spec.template.spec.containerz"',
    );
    expect((await kubectl(['get', 'deployments,daemonsets', '-o', 'name'])).out).toBe('');
  });

  it('warns about unknown fields with --validate=warn, drops them, and applies the untouched manifests', async () => {
    const warned = await kubectl(
      ['apply', '--validate=warn', '-f', '-'],
      manifest('manager/deployment.yaml').replace('imagePullPolicy:', 'imagePulPolicy:'),
    );
    expect(warned.code).toBe(0);
    expect(warned.err).toContain('Warning: unknown field "spec.template.spec.containers[0].imagePulPolicy"');
    const stored = await kubectl([
      'get',
      'deployment',
      '-o',
      'jsonpath={.items[0].spec.template.spec.containers[0]}',
    ]);
    expect(stored.out).not.toContain('imagePulPolicy');
    expect((await kubectl(['apply', '-f', '-'], manifest('daemon/daemonset.yaml'))).code).toBe(0);
  });

  it('refuses a value of the wrong type (400) and an unsupported enum value (422) with kube-apiserver words', async () => {
    const wrongType = await rawRequest(cp, 'POST', '/apis/apps/v1/namespaces/default/deployments', {
      body: JSON.stringify({
        metadata: { name: 'typed' },
        spec: {
          replicas: '2',
          selector: { matchLabels: { a: 'b' } },
          template: {
            metadata: { labels: { a: 'b' } },
            spec: { containers: [{ name: 'c', image: 'nginx' }] },
          },
        },
      }),
    });
    expect(wrongType.code).toBe(400);
    expect(wrongType.body.message).toBe(
      'Deployment in version "v1" cannot be handled as a Deployment: json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32',
    );
    const badEnum = await rawRequest(cp, 'POST', '/api/v1/namespaces/default/pods', {
      body: JSON.stringify({
        metadata: { name: 'enum' },
        spec: { containers: [{ name: 'c', image: 'nginx', imagePullPolicy: 'Sometimes' }] },
      }),
    });
    expect(badEnum.code).toBe(422);
    expect(badEnum.body.message).toBe(
      'Pod "enum" is invalid: spec.containers[0].imagePullPolicy: Unsupported value: "Sometimes": supported values: "Always", "IfNotPresent", "Never"',
    );
  });

  it('validates the kinds added later too (apps/v1 StatefulSet), with Strict and the default Warn', async () => {
    const body = JSON.stringify({
      metadata: { name: 'sts' },
      spec: {
        serviceName: 'sts',
        selector: { matchLabels: { a: 'b' } },
        template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } },
        volumeClaimTemplate: [],
      },
    });
    const path = '/apis/apps/v1/namespaces/default/statefulsets';
    const strict = await rawRequest(cp, 'POST', `${path}?fieldValidation=Strict`, { body });
    expect(strict.code).toBe(400);
    expect(strict.body.message).toBe(
      'StatefulSet in version "v1" cannot be handled as a StatefulSet: strict decoding error: unknown field "spec.volumeClaimTemplate"',
    );
    const warned = await rawRequest(cp, 'POST', path, { body });
    expect(warned.code).toBe(201);
    expect(warned.headers.warning).toBe('299 - "unknown field \\"spec.volumeClaimTemplate\\""');
    expect(warned.body.spec.volumeClaimTemplate).toBeUndefined();
  });

  it('serves Kubernetes definitions in /openapi/v2 and /openapi/v3', async () => {
    const v2 = await rawRequest(cp, 'GET', '/openapi/v2');
    expect(v2.code).toBe(200);
    expect(v2.body.definitions['io.k8s.api.core.v1.Container'].required).toEqual(['name']);
    expect(v2.body.definitions['io.k8s.api.apps.v1.Deployment']['x-kubernetes-group-version-kind']).toEqual([
      { group: 'apps', version: 'v1', kind: 'Deployment' },
    ]);
    const v3 = await rawRequest(cp, 'GET', '/openapi/v3/api/v1');
    expect(v3.body.components.schemas['io.k8s.api.core.v1.PodSpec'].properties.containers.items).toEqual({
      $ref: '#/components/schemas/io.k8s.api.core.v1.Container',
    });
  });
});
