import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { KRUISE_RESOURCES } from '@kruise/api/schemas';
import { parseDaemonOptions } from '@kruise/daemon';
import { parseOptions } from '@kruise/manager';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { helmPath } from '../../../test/support/kube-tools.ts';
import { runBinary } from '../../control-plane/test/kubectl-run.ts';
import { renderChartFiles } from '../src/index.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '../../..');
const chart = join(root, 'charts/kruise');
type K8sObject = {
  apiVersion: string;
  kind: string;
  metadata: {
    name: string;
    namespace?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
  };
  [k: string]: any;
};
const docs = (text: string): K8sObject[] =>
  parseAllDocuments(text)
    .map((d) => d.toJS())
    .filter(Boolean);
const key = (o: K8sObject) => `${o.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name}`;

/** `helm template` of the chart with these arguments (e.g. `--set a=b`). */
async function template(...args: string[]) {
  const r = await runBinary(helmPath(), ['template', 'kruise', chart, ...args], process.env);
  return { ...r, objects: r.code === 0 ? docs(r.out) : [] };
}
const find = (objects: K8sObject[], kind: string, name?: string) =>
  objects.find((o) => o.kind === kind && (name === undefined || o.metadata.name === name));

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((f) =>
    statSync(join(dir, f)).isDirectory() ? filesUnder(join(dir, f)) : [join(dir, f)],
  );
}

describe('charts/kruise (the Helm chart)', () => {
  it('matches the generator output, file for file (run `pnpm generate` after a change)', () => {
    const files = renderChartFiles();
    for (const [path, text] of files)
      expect(readFileSync(join(root, path), 'utf8'), `${path} is stale: run pnpm generate`).toBe(text);
    expect(
      filesUnder(chart)
        .map((f) => relative(root, f))
        .sort(),
    ).toEqual([...files.keys()].sort());
  });

  it('passes `helm lint --strict`', async () => {
    const r = await runBinary(helmPath(), ['lint', '--strict', chart], process.env);
    expect(r.out).toContain('1 chart(s) linted, 0 chart(s) failed');
    expect(r.code).toBe(0);
  });

  it('renders with default values the objects of deploy/kruise.yaml, the CRDs kept on uninstall', async () => {
    const { objects, err } = await template();
    expect(err).toBe('');
    const crds = objects.filter((o) => o.kind === 'CustomResourceDefinition');
    expect(crds).toHaveLength(KRUISE_RESOURCES.length);
    for (const crd of crds) {
      expect(crd.metadata.annotations?.['helm.sh/resource-policy']).toBe('keep');
      delete crd.metadata.annotations!['helm.sh/resource-policy'];
      if (Object.keys(crd.metadata.annotations!).length === 0) delete crd.metadata.annotations;
    }
    const deployed = docs(readFileSync(join(root, 'deploy/kruise.yaml'), 'utf8'));
    expect(new Map(objects.map((o) => [key(o), o]))).toEqual(new Map(deployed.map((o) => [key(o), o])));
  });

  it('moves every namespaced object, RBAC subject, webhook and conversion webhook to installation.namespace', async () => {
    const { objects } = await template('--set', 'installation.namespace=kruise-ops');
    const namespaced = objects.filter((o) => o.metadata.namespace);
    expect(new Set(namespaced.map((o) => o.metadata.namespace))).toEqual(
      new Set(['kruise-ops', 'kruise-daemon-config']),
    );
    expect(find(objects, 'Deployment')!.metadata.namespace).toBe('kruise-ops');
    expect(find(objects, 'Namespace', 'kruise-ops')!.metadata.labels).toEqual({
      'control-plane': 'controller-manager',
    });
    expect(find(objects, 'Namespace', 'kruise-system')).toBeUndefined();
    const subjects = objects.flatMap((o) => o.subjects ?? []);
    expect(new Set(subjects.map((s: any) => s.namespace))).toEqual(new Set(['kruise-ops']));
    const hooks = ['MutatingWebhookConfiguration', 'ValidatingWebhookConfiguration'].flatMap(
      (kind) => find(objects, kind)!.webhooks,
    );
    expect(new Set(hooks.map((w: any) => w.clientConfig.service.namespace))).toEqual(new Set(['kruise-ops']));
    const converted = objects.filter((o) => o.kind === 'CustomResourceDefinition' && o.spec.conversion);
    const multiVersion = KRUISE_RESOURCES.filter((r) => r.servedVersions?.length);
    expect(multiVersion.map((r) => r.kind)).toEqual(expect.arrayContaining(['StatefulSet', 'DaemonSet']));
    expect(converted.map((o) => [o.metadata.name, o.spec.conversion.webhook.clientConfig.service])).toEqual(
      multiVersion.map((r) => [
        `${r.plural}.${r.group}`,
        { namespace: 'kruise-ops', name: 'kruise-webhook-service', path: '/convert' },
      ]),
    );
    const without = await template('--set', 'installation.createNamespace=false');
    expect(without.objects.filter((o) => o.kind === 'Namespace').map((o) => o.metadata.name)).toEqual([
      'kruise-daemon-config',
    ]);
  });

  it('passes featureGates to the manager and the daemon; PodWebhook=false drops mpod, KruiseDaemon=false the DaemonSet', async () => {
    const gates = 'ImagePullJobGate=true,CloneSetShortHash=true';
    const { objects } = await template('--set', `featureGates=${gates.replace(',', '\\,')}`);
    expect(find(objects, 'Deployment')!.spec.template.spec.containers[0].args).toContain(
      `--feature-gates=${gates}`,
    );
    expect(find(objects, 'DaemonSet')!.spec.template.spec.containers[0].args).toContain(
      `--feature-gates=${gates}`,
    );
    const noPods = await template('--set', 'featureGates=PodWebhook=false');
    const mutating = find(noPods.objects, 'MutatingWebhookConfiguration')!.webhooks.map((w: any) => w.name);
    expect(mutating).not.toContain('mpod.kb.io');
    expect(mutating).toContain('mcloneset.kb.io');
    const noDaemon = await template('--set', 'featureGates=KruiseDaemon=false');
    expect(find(noDaemon.objects, 'DaemonSet')).toBeUndefined();
    expect(find(noDaemon.objects, 'Deployment')).toBeDefined();
  });

  it('accepts exactly the featureGates the programs accept (Go’s bool spellings, spaces, a later setting winning) and renders what they run', async () => {
    const values = [
      'PodWebhook=0',
      ' PodWebhook = F , KruiseDaemon=FALSE',
      'PodWebhook=false,PodWebhook=True',
      'KruiseDaemon=t,',
      'CloneSetShortHash=1,,ImagePullJobGate=TRUE',
      '',
      'PodWebhook=yes',
      'PodWebhook',
      'NoSuchGate=true',
      'PodWebhook=true, ',
      'PodWebhook=true;KruiseDaemon=false',
    ];
    const rendered = await Promise.all(
      values.map((v) => template('--set-json', `featureGates=${JSON.stringify(v)}`)),
    );
    const seen = values.map((v, i) => {
      const { code, objects } = rendered[i]!;
      const hooks = find(objects, 'MutatingWebhookConfiguration')?.webhooks.map((w: any) => w.name) ?? [];
      return [v, code === 0, hooks.includes('mpod.kb.io'), find(objects, 'DaemonSet') !== undefined];
    });
    const programs = values.map((v) => {
      try {
        const gates = parseOptions([`--feature-gates=${v}`]).featureGates;
        parseDaemonOptions([`--feature-gates=${v}`], { NODE_NAME: 'n' });
        return [v, true, gates.enabled('PodWebhook'), gates.enabled('KruiseDaemon')];
      } catch {
        return [v, false, false, false];
      }
    });
    expect(seen).toEqual(programs);
    expect(programs.filter(([, ok]) => ok)).toHaveLength(6);
  });

  it('takes upstream-named values: replicas, images, resources, log level, webhooks, daemon socket, scheduling, pull secrets', async () => {
    const { objects, err } = await template(
      ...['--set', 'manager.replicas=3', '--set', 'manager.image.repository=registry.local/km'],
      ...['--set', 'manager.image.tag=v9', '--set', 'manager.resources.limits.memory=1Gi'],
      ...['--set', 'manager.log.level=debug', '--set', 'manager.webhook.port=9443'],
      ...[
        '--set',
        'webhookConfiguration.failurePolicy.pods=Ignore',
        '--set',
        'webhookConfiguration.timeoutSeconds=10',
      ],
      ...['--set', 'daemon.socketLocation=/run/k3s', '--set', 'daemon.port=10300'],
      ...[
        '--set',
        'daemon.extraEnvs[0].name=HTTPS_PROXY',
        '--set',
        'daemon.extraEnvs[0].value=http://proxy:3128',
      ],
      ...['--set', 'manager.nodeSelector.pool=system', '--set', 'manager.tolerations[0].operator=Exists'],
      ...['--set', 'imagePullSecrets[0].name=regcred', '--set', 'serviceAccount.annotations.team=infra'],
      ...['--set', 'crds.managed=false', '--set', 'manager.hostNetwork=true'],
    );
    expect(err).toBe('');
    const d = find(objects, 'Deployment')!;
    const pod = d.spec.template.spec;
    const manager = pod.containers[0];
    expect(d.spec.replicas).toBe(3);
    expect(manager.image).toBe('registry.local/km:v9');
    expect(manager.resources).toEqual({
      limits: { cpu: '200m', memory: '1Gi' },
      requests: { cpu: '100m', memory: '256Mi' },
    });
    expect(manager.env).toContainEqual({ name: 'LOG_LEVEL', value: 'debug' });
    expect(manager.env).toContainEqual({ name: 'WEBHOOK_PORT', value: '9443' });
    expect(manager.ports[0]).toEqual({ name: 'webhook-server', containerPort: 9443, protocol: 'TCP' });
    expect(find(objects, 'Service')!.spec.ports).toEqual([{ port: 443, targetPort: 9443 }]);
    expect(pod.hostNetwork).toBe(true);
    expect(pod.nodeSelector).toEqual({ pool: 'system' });
    expect(pod.tolerations).toEqual([{ operator: 'Exists' }]);
    expect(pod.imagePullSecrets).toEqual([{ name: 'regcred' }]);
    const hooks = find(objects, 'MutatingWebhookConfiguration')!.webhooks;
    expect(hooks.find((w: any) => w.name === 'mpod.kb.io').failurePolicy).toBe('Ignore');
    expect(hooks.find((w: any) => w.name === 'mcloneset.kb.io').failurePolicy).toBe('Fail');
    expect(new Set(hooks.map((w: any) => w.timeoutSeconds))).toEqual(new Set([10]));
    const ds = find(objects, 'DaemonSet')!.spec.template.spec;
    expect(ds.volumes[0].hostPath).toEqual({ path: '/run/k3s', type: 'Directory' });
    expect(ds.containers[0].args).toContain('--addr=$(NODE_IP):10300');
    expect(ds.containers[0].livenessProbe.httpGet.port).toBe(10300);
    expect(ds.containers[0].env.at(-1)).toEqual({ name: 'HTTPS_PROXY', value: 'http://proxy:3128' });
    expect(ds.imagePullSecrets).toEqual([{ name: 'regcred' }]);
    for (const sa of objects.filter((o) => o.kind === 'ServiceAccount'))
      expect(sa.metadata.annotations).toEqual({ team: 'infra' });
    expect(find(objects, 'CustomResourceDefinition')).toBeUndefined();
    const deletable = await template('--set', 'crds.keepOnUninstall=false');
    const crds = deletable.objects.filter((o) => o.kind === 'CustomResourceDefinition');
    expect(crds.map((o) => o.metadata.annotations)).toEqual(crds.map(() => undefined));
    expect(crds).toHaveLength(KRUISE_RESOURCES.length);
  });

  it('gives kruise-manager and kruise-daemon only arguments they accept, as their images run them', async () => {
    const { objects } = await template(
      ...['--set', 'manager.metrics.port=9090', '--set', 'daemon.port=10300'],
      ...['--set', 'featureGates=CloneSetShortHash=true\\,PodWebhook=false'],
    );
    const manager = find(objects, 'Deployment')!.spec.template.spec.containers[0];
    const env = Object.fromEntries(
      manager.env.filter((e: any) => e.value).map((e: any) => [e.name, e.value]),
    );
    const m = parseOptions(manager.args);
    expect(m.metricsAddr).toBe(':9090');
    expect(m.featureGates.enabled('CloneSetShortHash')).toBe(true);
    expect(env).toMatchObject({ WEBHOOK_PORT: '9876', LOG_LEVEL: 'info' });
    const daemon = find(objects, 'DaemonSet')!.spec.template.spec.containers[0];
    // kubelet expands $(NODE_IP) from the pod's status.hostIP before the program sees it
    const args = daemon.args.map((a: string) => a.replace('$(NODE_IP)', '10.0.0.5'));
    const d = parseDaemonOptions(args, { NODE_NAME: 'node-1' });
    expect(d.addr).toBe('10.0.0.5:10300');
    expect(d.hostRunDir).toBe(daemon.volumeMounts[0].mountPath);
    expect(d.featureGates.enabled('PodWebhook')).toBe(false);
  });

  it('refuses a bad value by its path (values.schema.json) before anything is rendered', async () => {
    const gate = await template('--set', 'featureGates=NoSuchGate=true');
    expect(gate.code).not.toBe(0);
    expect(gate.err).toContain("at '/featureGates': 'NoSuchGate=true' does not match pattern");
    // Upstream's values files say `level: "4"` (klog verbosity): refused, not a crash-looping manager.
    const level = await template('--set-string', 'manager.log.level=4');
    expect(level.code).not.toBe(0);
    expect(level.err).toContain("at '/manager/log/level'");
    const policy = await template('--set', 'webhookConfiguration.failurePolicy.pods=Sometimes');
    expect(policy.code).not.toBe(0);
    expect(policy.err).toContain("at '/webhookConfiguration/failurePolicy/pods'");
  });
});
