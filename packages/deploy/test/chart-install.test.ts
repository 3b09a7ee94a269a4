import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ControlPlane } from '@kruise/control-plane';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../../../test/support/poll.ts';
import { type KubectlResult, kubectlFor } from '../../control-plane/test/kubectl-run.ts';

const chart = join(dirname(fileURLToPath(import.meta.url)), '../../../charts/kruise');

/** What the chart installs besides the CRDs: kind/namespace/name, as `kubectl get` names them. */
const INSTALLED = [
  ['namespace', '', 'kruise-system'],
  ['namespace', '', 'kruise-daemon-config'],
  ['deployment', 'kruise-system', 'kruise-controller-manager'],
  ['daemonset', 'kruise-system', 'kruise-daemon'],
  ['serviceaccount', 'kruise-system', 'kruise-manager'],
  ['serviceaccount', 'kruise-system', 'kruise-daemon'],
  ['clusterrole', '', 'kruise-manager-role'],
  ['clusterrolebinding', '', 'kruise-daemon-rolebinding'],
  ['role', 'kruise-system', 'kruise-manager-role'],
  ['rolebinding', 'kruise-daemon-config', 'kruise-daemon-secret-rolebinding'],
  ['service', 'kruise-system', 'kruise-webhook-service'],
  ['secret', 'kruise-system', 'kruise-webhook-certs'],
  ['mutatingwebhookconfiguration', '', 'kruise-mutating-webhook-configuration'],
  ['validatingwebhookconfiguration', '', 'kruise-validating-webhook-configuration'],
] as const;

const CRDS = [
  'clonesets.apps.kruise.io',
  'containerrecreaterequests.apps.kruise.io',
  'imagelistpulljobs.apps.kruise.io',
  'imagepulljobs.apps.kruise.io',
  'nodeimages.apps.kruise.io',
];

describe('helm install|upgrade|uninstall of charts/kruise on the control plane', () => {
  let cp: ControlPlane;
  let session: ReturnType<typeof kubectlFor>;
  const kubectl = (...args: string[]) => session.kubectl(args);
  const helm = (...args: string[]) => session.helm(args);
  const get = async (kind: string, namespace: string, name: string) => {
    const r = await kubectl('get', kind, name, ...(namespace ? ['-n', namespace] : []), '-o', 'json');
    if (r.code !== 0) throw new Error(r.err);
    return JSON.parse(r.out);
  };
  const ok = (r: KubectlResult) => {
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    return r.out;
  };
  const args = async (kind: 'deployment' | 'daemonset', name: string) =>
    (await get(kind, 'kruise-system', name)).spec.template.spec.containers[0].args as string[];

  beforeAll(async () => {
    cp = await ControlPlane.start();
    session = kubectlFor(cp);
  });
  afterAll(async () => {
    await cp?.stop();
    session?.dispose();
  });

  it('installs the manager, the daemon, RBAC, the webhook objects and the CRDs', async () => {
    expect(ok(await helm('install', 'kruise', chart))).toContain('STATUS: deployed');
    for (const [kind, namespace, name] of INSTALLED) {
      const o = await get(kind, namespace, name);
      expect(o.metadata.labels?.['app.kubernetes.io/managed-by'], `${kind} ${name}`).toBe('Helm');
    }
    for (const crd of CRDS) await get('crd', '', crd);
    expect(await args('deployment', 'kruise-controller-manager')).toContain(
      '--feature-gates=ImagePullJobGate=true',
    );
    // Served: a Kruise kind can be listed as soon as the release is installed.
    expect(await kubectl('get', 'clonesets', '-A')).toMatchObject({ code: 0, err: 'No resources found\n' });
  });

  it('upgrades featureGates into both programs, keeping what the manager wrote (certificates, caBundle)', async () => {
    // kruise-manager fills the certificates Secret and the webhooks' caBundle after the install.
    ok(
      await kubectl(
        '-n',
        'kruise-system',
        'patch',
        'secret',
        'kruise-webhook-certs',
        '-p',
        '{"data":{"ca-cert.pem":"Y2E="}}',
      ),
    );
    const caBundle = Buffer.from('a CA bundle').toString('base64');
    const webhooks = (await get('mutatingwebhookconfiguration', '', 'kruise-mutating-webhook-configuration'))
      .webhooks;
    const patch = webhooks.map((_: unknown, i: number) => ({
      op: 'add',
      path: `/webhooks/${i}/clientConfig/caBundle`,
      value: caBundle,
    }));
    ok(
      await kubectl(
        'patch',
        'mutatingwebhookconfiguration',
        'kruise-mutating-webhook-configuration',
        '--type=json',
        '-p',
        JSON.stringify(patch),
      ),
    );

    const gates = 'ImagePullJobGate=true,CloneSetShortHash=true';
    const upgrade = ok(
      await helm('upgrade', 'kruise', chart, '--set', `featureGates=${gates.replace(',', '\\,')}`),
    );
    expect(upgrade).toContain('REVISION: 2');
    expect(await args('deployment', 'kruise-controller-manager')).toContain(`--feature-gates=${gates}`);
    expect(await args('daemonset', 'kruise-daemon')).toContain(`--feature-gates=${gates}`);
    expect((await get('secret', 'kruise-system', 'kruise-webhook-certs')).data).toEqual({
      'ca-cert.pem': 'Y2E=',
    });
    const after = (await get('mutatingwebhookconfiguration', '', 'kruise-mutating-webhook-configuration'))
      .webhooks;
    expect(after.map((w: any) => w.clientConfig.caBundle)).toEqual(webhooks.map(() => caBundle));

    // PodWebhook=false takes the pod webhook out of the live configuration.
    ok(await helm('upgrade', 'kruise', chart, '--reuse-values', '--set', 'featureGates=PodWebhook=false'));
    const names = (
      await get('mutatingwebhookconfiguration', '', 'kruise-mutating-webhook-configuration')
    ).webhooks.map((w: any) => w.name);
    expect(names).not.toContain('mpod.kb.io');
    expect(names).toContain('mcloneset.kb.io');
  });

  it('refuses an upgrade with a bad value and leaves the release as it was', async () => {
    const bad = await helm('upgrade', 'kruise', chart, '--set', 'featureGates=NoSuchGate=true');
    expect(bad.code).not.toBe(0);
    expect(bad.err).toContain("at '/featureGates'");
    expect(ok(await helm('history', 'kruise', '-o', 'json'))).not.toContain('"revision":4');
    expect(await args('deployment', 'kruise-controller-manager')).toContain(
      '--feature-gates=PodWebhook=false',
    );
  });

  it('uninstalls everything it installed but the CRDs (and so the users’ CloneSets)', async () => {
    // No kruise-manager answers here: let a CloneSet in past its webhooks (failurePolicy Fail).
    for (const kind of ['mutating', 'validating']) {
      const name = `kruise-${kind}-webhook-configuration`;
      const hooks = (await get(`${kind}webhookconfiguration`, '', name)).webhooks;
      const i = hooks.findIndex((w: any) => w.name.endsWith('cloneset.kb.io'));
      const patch = [{ op: 'replace', path: `/webhooks/${i}/failurePolicy`, value: 'Ignore' }];
      ok(
        await kubectl(
          'patch',
          `${kind}webhookconfiguration`,
          name,
          '--type=json',
          '-p',
          JSON.stringify(patch),
        ),
      );
    }
    ok(
      await session.kubectl(
        ['apply', '-f', '-'],
        'apiVersion: apps.kruise.io/v1alpha1\nkind: CloneSet\nmetadata: {name: web, namespace: default}\nspec:\n  replicas: 0\n  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec: {containers: [{name: web, image: nginx:1.27}]}\n',
      ),
    );
    const out = ok(await helm('uninstall', 'kruise', '--wait'));
    expect(out).toContain('These resources were kept due to the resource policy:');
    expect(out).toContain('release "kruise" uninstalled');
    for (const [kind, namespace, name] of INSTALLED)
      await eventually(
        async () => {
          const r = await kubectl('get', kind, name, ...(namespace ? ['-n', namespace] : []));
          return r.code !== 0 && r.err.includes('NotFound');
        },
        30_000,
        100,
      );
    for (const crd of CRDS) expect((await get('crd', '', crd)).metadata.deletionTimestamp).toBeUndefined();
    expect((await get('cloneset', 'default', 'web')).spec.replicas).toBe(0);
    expect(ok(await helm('list', '-o', 'json')).trim()).toBe('[]');
  });
});
