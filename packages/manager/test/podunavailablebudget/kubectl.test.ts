import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseFeatureGates } from '@kruise/api';
import { ControlPlane } from '@kruise/control-plane';
import { createWebhookCertificates, KubeClient, Resources, WebhookServer } from '@kruise/runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { type KubectlSession, kubectlSession } from '../../../../test/support/kubectl.ts';
import {
  apiPubLookups,
  validatePodUnavailableBudget,
} from '../../src/webhooks/podunavailablebudget/validating.ts';

/**
 * The PodUnavailableBudget webhook as a user meets it: kubectl 1.33 against the control plane, the
 * PUB CRD of deploy/, and the handler alone on a WebhookServer behind `vpodunavailablebudget.kb.io`;
 * each refusal is the exact text kubectl prints.
 */

const root = join(dirname(fileURLToPath(import.meta.url)), '../../../..');
const HOOK = 'vpodunavailablebudget.kb.io';
const PATH = '/validate-policy-kruise-io-podunavailablebudget';
const SERVICE = { name: 'kruise-webhook-service', namespace: 'kruise-system' };

const pub = (name: string, spec: Record<string, unknown>, annotations?: Record<string, string>) =>
  stringify({
    apiVersion: 'policy.kruise.io/v1alpha1',
    kind: 'PodUnavailableBudget',
    metadata: { name, ...(annotations ? { annotations } : {}) },
    spec,
  });

describe('PodUnavailableBudget webhook through kubectl (control plane, the handler on a WebhookServer)', () => {
  let cp: ControlPlane;
  let server: WebhookServer;
  let session: KubectlSession;
  const ok = (args: string[], input?: string) => session.ok(args, input);
  const refused = async (args: string[], input: string | undefined, said: string) => {
    expect(await session.refusal(args, input)).toBe(said);
  };
  const denial = (message: string) => `admission webhook "${HOOK}" denied the request: ${message}`;

  beforeAll(async () => {
    cp = await ControlPlane.start();
    const client = KubeClient.fromString(cp.kubeconfig());
    await client.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {
      body: parse(
        readFileSync(join(root, 'deploy/crds/policy.kruise.io_podunavailablebudgets.yaml'), 'utf8'),
      ),
    });
    await client.create(Resources.Namespace, { metadata: { name: SERVICE.namespace } });
    const certs = await createWebhookCertificates(
      [`${SERVICE.name}.${SERVICE.namespace}.svc`],
      3_600_000,
      3_600_000,
    );
    server = new WebhookServer();
    server.register(PATH, validatePodUnavailableBudget(parseFeatureGates(''), apiPubLookups(client)));
    const port = await server.listen('127.0.0.1', 0, certs);
    await client.create(Resources.Service, {
      metadata: SERVICE,
      spec: { ports: [{ port: 443, targetPort: 9876 }] },
    });
    await client.create(Resources.Endpoints, {
      metadata: SERVICE,
      subsets: [{ addresses: [{ ip: '127.0.0.1' }], ports: [{ port }] }],
    });
    await client.create(Resources.ValidatingWebhookConfiguration, {
      metadata: { name: 'kruise-validating-webhook-configuration' },
      webhooks: [
        {
          name: HOOK,
          admissionReviewVersions: ['v1', 'v1beta1'],
          sideEffects: 'None',
          failurePolicy: 'Fail',
          clientConfig: {
            service: { ...SERVICE, path: PATH, port: 443 },
            caBundle: Buffer.from(certs.caCert).toString('base64'),
          },
          rules: [
            {
              apiGroups: ['policy.kruise.io'],
              apiVersions: ['v1alpha1'],
              operations: ['CREATE', 'UPDATE'],
              resources: ['podunavailablebudgets'],
            },
          ],
        },
      ],
    });
    session = kubectlSession(cp, 'pubwh-');
  });
  afterAll(async () => {
    await server?.close();
    await cp?.stop();
    session?.dispose();
  });

  it('creates a valid budget and refuses a second one on the same workload, at another version', async () => {
    const web = { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' };
    await ok(['create', '-n', 'default', '-f', '-'], pub('web', { targetRef: web, maxUnavailable: '25%' }));
    await refused(
      ['create', '-n', 'default', '-f', '-'],
      pub('web-again', { targetRef: { ...web, apiVersion: 'apps/v1beta1' }, minAvailable: 1 }),
      `Error from server: error when creating "STDIN": ${denial(
        'spec.targetReference: Invalid value: v1alpha1.TargetReference{APIVersion:"apps/v1beta1", Kind:"Deployment", Name:"web"}: pub.spec.targetReference is in conflict with other PodUnavailableBudget web',
      )}`,
    );
    // Another namespace's budgets are not looked at.
    await ok(['create', 'namespace', 'team']);
    await ok(['create', '-n', 'team', '-f', '-'], pub('web', { targetRef: web, maxUnavailable: 1 }));
  });

  it('sees a budget created a moment before: overlapping selectors refused at once', async () => {
    const selector = { matchExpressions: [{ key: 'app', operator: 'In', values: ['api', 'worker'] }] };
    await ok(['create', '-n', 'default', '-f', '-'], pub('api', { selector, maxUnavailable: 1 }));
    await refused(
      ['create', '-n', 'default', '-f', '-'],
      pub('api-too', { selector: { matchLabels: { app: 'api' } }, maxUnavailable: 1 }),
      `Error from server: error when creating "STDIN": ${denial(
        'spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string{"app":"api"}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: pub.spec.selector is in conflict with other PodUnavailableBudget api',
      )}`,
    );
  });

  it('refuses a malformed budget with every error joined, as upstream prints them', async () => {
    await refused(
      ['create', '-n', 'default', '-f', '-'],
      pub(
        'broken',
        { selector: {}, maxUnavailable: '150%' },
        { 'kruise.io/pub-protect-operations': 'DELETE,SCALE' },
      ),
      `Error from server: error when creating "STDIN": ${denial(
        '[metadata: Internal error: annotation[kruise.io/pub-protect-operations] is invalid, ' +
          'spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string(nil), MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: empty selector is not valid for PodUnavailableBudget., ' +
          'spec.maxUnavailable: Invalid value: intstr.IntOrString{Type:1, IntVal:0, StrVal:"150%"}: must not be greater than 100%]',
      )}`,
    );
    await refused(
      ['create', '-n', 'default', '-f', '-'],
      pub('nothing', {}),
      `Error from server: error when creating "STDIN": ${denial(
        '[spec.selector, targetRef: Required value: no selector or targetRef defined in PodUnavailableBudget, ' +
          'spec.maxUnavailable, minAvailable: Required value: no maxUnavailable or minAvailable defined in PodUnavailableBudget]',
      )}`,
    );
  });

  it('lets the budget change but not the pods it picks', async () => {
    await ok(['patch', 'pub', 'web', '-n', 'default', '--type=merge', '-p', '{"spec":{"maxUnavailable":2}}']);
    expect(await ok(['get', 'pub', 'web', '-n', 'default', '-o', 'jsonpath={.spec.maxUnavailable}'])).toBe(
      '2',
    );
    await refused(
      ['patch', 'pub', 'web', '-n', 'default', '--type=merge', '-p', '{"spec":{"targetRef":{"name":"api"}}}'],
      undefined,
      `Error from server: ${denial('spec.selector, targetRef: Required value: selector and targetRef cannot be modified')}`,
    );
    await refused(
      ['annotate', 'pub', 'web', '-n', 'default', 'pub.kruise.io/protect-total-replicas=many'],
      undefined,
      `Error from server: ${denial('metadata: Internal error: annotation[pub.kruise.io/protect-total-replicas] is invalid')}`,
    );
    await ok(['annotate', 'pub', 'web', '-n', 'default', 'pub.kruise.io/protect-total-replicas=5']);
  });
});
