import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KruiseResources, type SidecarSet } from '@kruise/api';
import type { AuditRecord } from '@kruise/control-plane';
import { ControlPlane } from '@kruise/control-plane';
import { DEPLOY_FEATURE_GATES, JUSTIFIED_UNUSED, type PolicyRule } from '@kruise/deploy';
import { KubeClient, type KubeObject, Resources, retryOnConflict } from '@kruise/runtime';
import { applyManifests, pointWebhookService } from '@kruise/stack/cluster-bootstrap';
import type { Program } from '@kruise/stack/program';
import {
  startDaemonProcess,
  startLocalNodeProcess,
  startManagerProcess,
} from '@kruise/stack/program-recipes';
import { repoRoot } from '@kruise/stack/repo-root';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { parse, parseAllDocuments, stringify } from 'yaml';
import { injectedPod, stampedSidecarSet } from '../support/sidecarset.ts';
import { widgetCrd } from '../support/widget-crd.ts';
import { assertNoSecretInLogs, LOOP, until } from './env.ts';

/**
 * RBAC proven both ways: deploy/kruise.yaml is applied, kruise-manager and kruise-daemon run with
 * their ServiceAccounts' tokens (TokenRequest), the image and CRR scenarios run, and the audit
 * trail must show no denied request and a use for every rule granted (or a recorded reason).
 */
const NODE = 'rbac-node';
const MANAGER = 'system:serviceaccount:kruise-system:kruise-manager';
const DAEMON = 'system:serviceaccount:kruise-system:kruise-daemon';
let cp: ControlPlane;
let admin: KubeClient;
let dir: string;
const programs: Program[] = [];
/** The local node, started with the admin kubeconfig (its requests are not what the test checks). */
let localNode: Program | undefined;

/** A kubeconfig for a ServiceAccount, with a token from TokenRequest. */
async function serviceAccountKubeconfig(name: string): Promise<string> {
  const tr = await admin.request('POST', `/api/v1/namespaces/kruise-system/serviceaccounts/${name}/token`, {
    body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: 3600 } },
  });
  const config = parse(cp.kubeconfig());
  config.users = [{ name, user: { token: tr.status.token } }];
  config.contexts = config.contexts.map((c: any) => ({ ...c, context: { ...c.context, user: name } }));
  const path = join(dir, `${name}.kubeconfig`);
  writeFileSync(path, stringify(config));
  return path;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'rbac-'));
  // local-path volumes in the test's own directory (removed with it)
  // deploy/kruise.yaml's own kruise-daemon DaemonSet stays without pods: this test runs the daemon
  // (and the manager) as processes of its own, on the node the DaemonSet would pick.
  cp = await ControlPlane.start({ localPathRoot: join(dir, 'local-path'), workloadSets: false });
  admin = KubeClient.fromString(cp.kubeconfig());
  const adminConfig = join(dir, 'admin.kubeconfig');
  cp.writeKubeconfig(adminConfig);
  await applyManifests(
    admin,
    parseAllDocuments(readFileSync(join(repoRoot, 'deploy/kruise.yaml'), 'utf8')).map((d) => d.toJS()),
  );
  const socket = `unix://${inject('criSocket')}`;
  // The local node plays kubelet (its own credentials in a cluster): admin here.
  localNode = await startLocalNodeProcess(adminConfig, NODE, socket, ['--restart-backoff=1s']);
  programs.push(localNode);
  const { program, webhookPort } = await startManagerProcess(
    await serviceAccountKubeconfig('kruise-manager'),
    [
      '--enable-leader-election=true',
      '--nodeimage-creation-delay=0s',
      `--feature-gates=${DEPLOY_FEATURE_GATES},SidecarTerminator=true,ResourcesDeletionProtection=true`,
    ],
  );
  programs.push(program);
  // kube-controller-manager's part: the webhook Service's endpoints.
  await pointWebhookService(admin, webhookPort);
  programs.push(await startDaemonProcess(await serviceAccountKubeconfig('kruise-daemon'), NODE, socket));
  // jobs select this node by name: its NodeImage must exist first (else a job has 0 nodes to pull on)
  await until(() => admin.get(KruiseResources.NodeImage, undefined, NODE).catch(() => undefined), 30_000);
});
afterAll(async () => {
  await assertNoSecretInLogs(admin, programs);
  for (const p of await admin
    .list(Resources.Pod, { namespace: 'default' })
    .then((l) => l.items)
    .catch(() => []))
    await admin
      .delete(Resources.Pod, 'default', p.metadata!.name!, { gracePeriodSeconds: 1 })
      .catch(() => undefined);
  await until(
    async () => (await admin.list(Resources.Pod, { namespace: 'default' })).items.length === 0,
  ).catch(() => undefined);
  for (const p of programs.reverse()) await p.stop();
  await cp?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const registry = () => inject('registry');
/** `until`, printing the programs' last output when the condition is not met. */
const waitFor = <T>(check: () => Promise<T | undefined> | T | undefined, timeoutMs = 30_000) =>
  until(check, timeoutMs).catch((err) => {
    for (const p of programs) console.log(`--- ${p.name}\n${p.output().slice(-4000)}`);
    throw err;
  });
const get = (r: typeof KruiseResources.ImagePullJob, ns: string | undefined, name: string) =>
  admin.get(r, ns, name).catch(() => undefined);

/** Whether a rule's resource names an audited one, as RBAC matches them (a star, or star/scale). */
function resourceMatches(granted: string, r: AuditRecord): boolean {
  const full = r.subresource ? `${r.resource}/${r.subresource}` : r.resource;
  if (granted === '*') return !r.subresource;
  if (granted.startsWith('*/')) return r.subresource === granted.slice(2);
  return full === granted;
}

/** Whether an audit record is a use of `verb` on `resource` granted by `rule` (namespace-scoped for Roles). */
function uses(r: AuditRecord, rule: PolicyRule, resource: string, verb: string, namespace?: string): boolean {
  return (
    r.verb === verb &&
    (rule.apiGroups.includes(r.group) || rule.apiGroups.includes('*')) &&
    resourceMatches(resource, r) &&
    (!namespace || r.namespace === namespace) &&
    (!rule.resourceNames || rule.resourceNames.includes(r.name))
  );
}

describe('RBAC of deploy/ (manager and daemon on ServiceAccount tokens)', () => {
  it('runs the image, ContainerRecreateRequest and containermeta scenarios', async () => {
    // image pre-pull with a pull secret (copied to kruise-daemon-config, read by the daemon)
    await admin.create(Resources.Secret, {
      metadata: { name: 'reg', namespace: 'default' },
      type: 'kubernetes.io/dockerconfigjson',
      data: {
        '.dockerconfigjson': Buffer.from(
          JSON.stringify({ auths: { [registry()]: { auth: Buffer.from('u:p').toString('base64') } } }),
        ).toString('base64'),
      },
    });
    await admin.create(KruiseResources.ImagePullJob, {
      metadata: { name: 'pull', namespace: 'default' },
      spec: {
        image: `${registry()}/busybox:v2`,
        pullSecrets: ['reg'],
        // pulled even when an earlier test left the image on this containerd (the secret is read)
        imagePullPolicy: 'Always',
        selector: { names: [NODE] },
        completionPolicy: { type: 'Always', ttlSecondsAfterFinished: 2 },
      },
    });
    // a second job with the same secret shares its copy (the copy's references are updated)
    await admin.create(KruiseResources.ImagePullJob, {
      metadata: { name: 'pull2', namespace: 'default' },
      spec: {
        image: `${registry()}/busybox:v1`,
        pullSecrets: ['reg'],
        // pulled even when an earlier test left the image on this containerd (the secret is read)
        imagePullPolicy: 'Always',
        selector: { names: [NODE] },
        completionPolicy: { type: 'Always' },
      },
    });
    await admin.create(KruiseResources.ImageListPullJob, {
      metadata: { name: 'list', namespace: 'default' },
      spec: {
        images: [`${registry()}/busybox:v1`, `${registry()}/pause:v1`],
        selector: { names: [NODE] },
        completionPolicy: { type: 'Always' },
      },
    });
    await waitFor(
      async () => (await get(KruiseResources.ImagePullJob, 'default', 'pull'))?.status?.succeeded === 1,
      60_000,
    );
    await waitFor(
      async () => (await get(KruiseResources.ImageListPullJob, 'default', 'list'))?.status?.succeeded === 2,
      60_000,
    );
    // the job is deleted after its TTL (finalizer removed, secret copy released)
    await waitFor(async () => !(await get(KruiseResources.ImagePullJob, 'default', 'pull')));
    // a node that goes away takes its NodeImage with it
    await admin.create(Resources.Node, {
      metadata: { name: 'spare' },
      status: { conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: '2020-01-01T00:00:00Z' }] },
    });
    await waitFor(async () => get(KruiseResources.NodeImage, undefined, 'spare'));
    await admin.delete(Resources.Node, undefined, 'spare');
    await waitFor(async () => !(await get(KruiseResources.NodeImage, undefined, 'spare')));
    // a CRR with an unready grace period on a gated pod, deleted after its TTL
    await admin.create(Resources.Pod, {
      metadata: { name: 'web', namespace: 'default' },
      spec: {
        nodeName: NODE,
        readinessGates: [{ conditionType: 'KruisePodReady' }],
        containers: [
          { name: 'app', image: `${registry()}/busybox:v1`, command: LOOP },
          { name: 'sidecar', image: `${registry()}/busybox:v2`, command: LOOP },
        ],
      },
    });
    await waitFor(async () =>
      (await admin.get(Resources.Pod, 'default', 'web')).status?.containerStatuses?.every(
        (s: any) => s.ready,
      ),
    );
    await admin.create(KruiseResources.ContainerRecreateRequest, {
      metadata: { name: 'web', namespace: 'default' },
      spec: {
        podName: 'web',
        containers: [{ name: 'app' }],
        strategy: { unreadyGracePeriodSeconds: 1 },
        ttlSecondsAfterFinished: 1,
      },
    });
    await waitFor(
      async () => !(await get(KruiseResources.ContainerRecreateRequest, 'default', 'web')),
      30_000,
    );
    // a CRR that runs past its deadline is completed by the manager
    await admin.create(Resources.Pod, {
      metadata: { name: 'slow', namespace: 'default' },
      spec: {
        nodeName: NODE,
        containers: [
          {
            name: 'app',
            image: `${registry()}/busybox:v1`,
            command: LOOP,
            lifecycle: { preStop: { exec: { command: ['sleep', '6'] } } },
          },
        ],
      },
    });
    await waitFor(
      async () => (await admin.get(Resources.Pod, 'default', 'slow')).status?.containerStatuses?.[0]?.ready,
    );
    await admin.create(KruiseResources.ContainerRecreateRequest, {
      metadata: { name: 'slow', namespace: 'default' },
      spec: { podName: 'slow', containers: [{ name: 'app' }], activeDeadlineSeconds: 3 },
    });
    await waitFor(
      async () =>
        (await admin.get(KruiseResources.ContainerRecreateRequest, 'default', 'slow')).status?.message ===
        'recreating has exceeded the activeDeadlineSeconds',
    );
    // containermeta reports runtime-containers-meta on a pod a SidecarSet injected into (pods/status)
    await admin.create(Resources.Pod, {
      metadata: {
        name: 'injected',
        namespace: 'default',
        annotations: { 'kruise.io/sidecarset-hash': '{}' },
      },
      spec: {
        nodeName: NODE,
        containers: [{ name: 'app', image: `${registry()}/busybox:v1`, command: LOOP }],
      },
    });
    await waitFor(async () => {
      const p = await admin.get(Resources.Pod, 'default', 'injected');
      return p.metadata?.annotations?.['apps.kruise.io/runtime-containers-meta']?.includes(
        p.status?.containerStatuses?.[0]?.containerID ?? 'none',
      );
    });
    const web = await admin.get(Resources.Pod, 'default', 'web');
    expect(web.status.containerStatuses.find((s: any) => s.name === 'app').restartCount).toBe(1);
  }, 180_000);

  it('runs a CloneSet scenario (in-place update, rollback, history, podsToDelete)', async () => {
    const cs = (spec: Record<string, unknown>) => ({
      metadata: { name: 'rbac-cs', namespace: 'default' },
      spec: {
        replicas: 2,
        revisionHistoryLimit: 1,
        selector: { matchLabels: { app: 'rbac-cs' } },
        updateStrategy: { type: 'InPlaceIfPossible', maxUnavailable: 2 },
        template: {
          metadata: { labels: { app: 'rbac-cs' } },
          spec: {
            nodeName: NODE,
            containers: [{ name: 'app', image: `${registry()}/busybox:v1`, command: LOOP }],
          },
        },
        ...spec,
      },
    });
    const status = () => admin.get(KruiseResources.CloneSet, 'default', 'rbac-cs').then((c) => c.status);
    const settled = () =>
      waitFor(async () => {
        const c = await admin.get(KruiseResources.CloneSet, 'default', 'rbac-cs');
        const st = c.status;
        return st?.observedGeneration === c.metadata?.generation &&
          st?.updatedAvailableReplicas === 2 &&
          st.replicas === 2 &&
          st.currentRevision === st.updateRevision
          ? st
          : undefined;
      }, 60_000);
    const setImage = (tag: string) =>
      admin.mergePatch(KruiseResources.CloneSet, 'default', 'rbac-cs', {
        spec: {
          template: {
            spec: { containers: [{ name: 'app', image: `${registry()}/busybox:${tag}`, command: LOOP }] },
          },
        },
      });
    await admin.create(KruiseResources.CloneSet, cs({}));
    const first = (await settled()).updateRevision;
    await setImage('v2'); // in place: pods updated
    await settled();
    await setImage('v1'); // rollback: the first revision is renumbered
    expect((await settled()).updateRevision).toBe(first);
    // a metadata-only change: a third revision, the oldest one beyond revisionHistoryLimit goes
    await admin.mergePatch(KruiseResources.CloneSet, 'default', 'rbac-cs', {
      spec: { template: { metadata: { annotations: { note: 'x' } } } },
    });
    await settled();
    const [pod] = (await admin.list(Resources.Pod, { namespace: 'default', labelSelector: 'app=rbac-cs' }))
      .items;
    await admin.mergePatch(KruiseResources.CloneSet, 'default', 'rbac-cs', {
      spec: { scaleStrategy: { podsToDelete: [pod!.metadata!.name] } },
    });
    await waitFor(
      async () =>
        (await admin.get(KruiseResources.CloneSet, 'default', 'rbac-cs')).spec?.scaleStrategy
          ?.podsToDelete === undefined,
    );
    await settled();
    expect((await status())?.readyReplicas).toBe(2);
  }, 180_000);

  it('runs a CloneSet volumeClaimTemplates scenario (claims created, reused, handed to a pod, deleted)', async () => {
    const ID = 'apps.kruise.io/cloneset-instance-id';
    const pods = async () =>
      (await admin.list(Resources.Pod, { namespace: 'default', labelSelector: 'app=rbac-vols' })).items;
    const claims = async () =>
      (await admin.list(Resources.PersistentVolumeClaim, { namespace: 'default' })).items
        .filter((c) => c.metadata?.name?.startsWith('data-rbac-vols-') && !c.metadata.deletionTimestamp)
        .map((c) => c.metadata!.name!)
        .sort();
    const claimOf = (p: KubeObject) => `data-rbac-vols-${p.metadata!.labels![ID]}`;
    /** The pods when `replicas` of them run ready and none is terminating. */
    const readyPods = async (replicas: number) => {
      const p = await pods();
      return p.length === replicas &&
        p.every((x) => !x.metadata?.deletionTimestamp && x.status?.containerStatuses?.[0]?.ready)
        ? p
        : undefined;
    };
    const ready = (replicas: number, also: (p: KubeObject[]) => boolean = () => true) =>
      waitFor(async () => {
        const p = await readyPods(replicas);
        return p && also(p) ? p : undefined;
      }, 60_000);
    await admin.create(KruiseResources.CloneSet, {
      metadata: { name: 'rbac-vols', namespace: 'default' },
      spec: {
        replicas: 1,
        selector: { matchLabels: { app: 'rbac-vols' } },
        volumeClaimTemplates: [
          {
            metadata: { name: 'data' },
            spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
          },
        ],
        template: {
          metadata: { labels: { app: 'rbac-vols' } },
          spec: {
            // no nodeName: local-path claims wait for the scheduler to pick the node (WaitForFirstConsumer)
            terminationGracePeriodSeconds: 1,
            containers: [
              {
                name: 'app',
                image: `${registry()}/busybox:v1`,
                command: LOOP,
                volumeMounts: [{ name: 'data', mountPath: '/data' }],
              },
            ],
          },
        },
      },
    });
    await ready(1);
    // scale up: a claim per instance id (list + create)
    await admin.mergePatch(KruiseResources.CloneSet, 'default', 'rbac-vols', { spec: { replicas: 2 } });
    const [first, second] = await ready(2);
    expect(await claims()).toEqual([first!, second!].map(claimOf).sort());
    // a deleted pod is replaced under the same instance id, on the same claim
    await admin.delete(Resources.Pod, 'default', first!.metadata!.name!, { gracePeriodSeconds: 1 });
    await ready(
      2,
      (p) =>
        !p.some((x) => x.metadata!.uid === first!.metadata!.uid) &&
        p.some((x) => claimOf(x) === claimOf(first!)),
    );
    expect(await claims()).toEqual([first!, second!].map(claimOf).sort());
    // disablePVCReuse: the claim of a terminating pod is handed to that pod (update); a finalizer
    // keeps the pod terminating until the hand-over is seen
    await admin.mergePatch(KruiseResources.CloneSet, 'default', 'rbac-vols', {
      spec: { scaleStrategy: { disablePVCReuse: true } },
    });
    await admin.mergePatch(Resources.Pod, 'default', second!.metadata!.name!, {
      metadata: { finalizers: ['example.io/hold'] },
    });
    await admin.delete(Resources.Pod, 'default', second!.metadata!.name!, { gracePeriodSeconds: 1 });
    await waitFor(async () => {
      const pvc = await admin.get(Resources.PersistentVolumeClaim, 'default', claimOf(second!));
      return pvc.metadata?.ownerReferences?.some(
        (r: any) => r.kind === 'Pod' && r.uid === second!.metadata!.uid,
      );
    });
    await admin.mergePatch(Resources.Pod, 'default', second!.metadata!.name!, {
      metadata: { finalizers: null },
    });
    const replaced = await ready(2, (p) => p.every((x) => claimOf(x) !== claimOf(second!)));
    // the handed-over claim goes with its pod (garbage collector), the replacement has a new one
    await waitFor(async () => {
      const c = await claims();
      return c.length === 2 && !c.includes(claimOf(second!));
    }, 60_000);
    expect(await claims()).toEqual(replaced.map(claimOf).sort());
    // scale in: the pod and its claim are deleted by the manager
    await admin.mergePatch(KruiseResources.CloneSet, 'default', 'rbac-vols', { spec: { replicas: 1 } });
    const [kept] = await ready(1);
    await waitFor(async () => (await claims()).length === 1);
    expect(await claims()).toEqual([claimOf(kept!)]);
  }, 240_000);

  it('runs an Advanced StatefulSet scenario (adoption, claims and their retention, in-place update, scale-down)', async () => {
    const pods = async () =>
      (await admin.list(Resources.Pod, { namespace: 'default', labelSelector: 'app=rbac-sts' })).items.filter(
        (p) => !p.metadata?.deletionTimestamp,
      );
    const claims = async () =>
      (await admin.list(Resources.PersistentVolumeClaim, { namespace: 'default' })).items
        .filter((c) => c.metadata?.name?.startsWith('data-rbac-sts-') && !c.metadata.deletionTimestamp)
        .map((c) => c.metadata!.name!)
        .sort();
    const container = (tag: string) => ({
      name: 'app',
      image: `${registry()}/busybox:${tag}`,
      command: LOOP,
      volumeMounts: [{ name: 'data', mountPath: '/data' }],
    });
    const settled = (replicas: number) =>
      waitFor(async () => {
        const set = await admin.get(KruiseResources.StatefulSet, 'default', 'rbac-sts');
        const st = set.status;
        return st?.observedGeneration === set.metadata?.generation &&
          st?.readyReplicas === replicas &&
          st.updatedReplicas === replicas &&
          (await pods()).length === replicas
          ? st
          : undefined;
      }, 90_000);
    // an orphan pod of the set's name and selector, adopted (a fresh read of the set first)
    await admin.create(Resources.Pod, {
      metadata: { name: 'rbac-sts-0', namespace: 'default', labels: { app: 'rbac-sts' } },
      spec: {
        terminationGracePeriodSeconds: 1,
        containers: [{ name: 'app', image: `${registry()}/busybox:v1`, command: LOOP }],
      },
    });
    await admin.create(KruiseResources.StatefulSet, {
      metadata: { name: 'rbac-sts', namespace: 'default' },
      spec: {
        replicas: 2,
        podManagementPolicy: 'Parallel',
        selector: { matchLabels: { app: 'rbac-sts' } },
        persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Delete', whenScaled: 'Delete' },
        updateStrategy: { rollingUpdate: { podUpdatePolicy: 'InPlaceIfPossible', maxUnavailable: 2 } },
        volumeClaimTemplates: [
          {
            metadata: { name: 'data' },
            spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
          },
        ],
        template: {
          metadata: { labels: { app: 'rbac-sts' } },
          spec: {
            terminationGracePeriodSeconds: 1,
            readinessGates: [{ conditionType: 'InPlaceUpdateReady' }],
            containers: [container('v1')],
          },
        },
      },
    });
    const set = await admin.get(KruiseResources.StatefulSet, 'default', 'rbac-sts');
    await waitFor(async () =>
      (await admin.get(Resources.Pod, 'default', 'rbac-sts-0')).metadata?.ownerReferences?.some(
        (r: any) => r.uid === set.metadata?.uid,
      ),
    );
    // the adopted pod has no claim volume: it is replaced to get one (specified delete)
    await admin.mergePatch(Resources.Pod, 'default', 'rbac-sts-0', {
      metadata: { labels: { 'apps.kruise.io/specified-delete': 'true' } },
    });
    await settled(2);
    expect(await claims()).toEqual(['data-rbac-sts-0', 'data-rbac-sts-1']);
    const before = (await pods()).map((p) => p.metadata?.uid).sort();
    // in place: same pods
    await admin.mergePatch(KruiseResources.StatefulSet, 'default', 'rbac-sts', {
      spec: { template: { spec: { containers: [container('v2')] } } },
    });
    await settled(2);
    expect((await pods()).map((p) => p.metadata?.uid).sort()).toEqual(before);
    // scale down: the scaled-down pod's claim is handed to the pod (patch) and goes with it
    await admin.mergePatch(KruiseResources.StatefulSet, 'default', 'rbac-sts', { spec: { replicas: 1 } });
    await settled(1);
    await waitFor(async () => (await claims()).join() === 'data-rbac-sts-0', 60_000);
  }, 240_000);

  it('runs an Advanced DaemonSet scenario (adoption, in-place update, status)', async () => {
    const pods = async () =>
      (await admin.list(Resources.Pod, { namespace: 'default', labelSelector: 'app=rbac-ads' })).items.filter(
        (p) => !p.metadata?.deletionTimestamp,
      );
    const container = (tag: string) => ({
      name: 'app',
      image: `${registry()}/busybox:${tag}`,
      command: LOOP,
    });
    // an orphan pod on the node with the DaemonSet's labels: adopted (a fresh read of it first)
    await admin.create(Resources.Pod, {
      metadata: { name: 'rbac-ads-orphan', namespace: 'default', labels: { app: 'rbac-ads' } },
      spec: {
        nodeName: NODE,
        terminationGracePeriodSeconds: 1,
        readinessGates: [{ conditionType: 'InPlaceUpdateReady' }],
        containers: [container('v1')],
      },
    });
    await admin.create(KruiseResources.DaemonSet, {
      metadata: { name: 'rbac-ads', namespace: 'default' },
      spec: {
        selector: { matchLabels: { app: 'rbac-ads' } },
        updateStrategy: { rollingUpdate: { rollingUpdateType: 'InPlaceIfPossible' } },
        template: {
          metadata: { labels: { app: 'rbac-ads' } },
          spec: {
            terminationGracePeriodSeconds: 1,
            readinessGates: [{ conditionType: 'InPlaceUpdateReady' }],
            containers: [container('v1')],
          },
        },
      },
    });
    const settled = (tag: string) =>
      waitFor(async () => {
        const ds = await admin.get(KruiseResources.DaemonSet, 'default', 'rbac-ads');
        const st = ds.status;
        const ps = await pods();
        return st?.observedGeneration === ds.metadata?.generation &&
          st?.numberAvailable === 1 &&
          st.updatedNumberScheduled === 1 &&
          ps.length === 1 &&
          ps[0]!.spec?.containers?.[0]?.image === container(tag).image
          ? ps[0]
          : undefined;
      }, 90_000);
    // the orphan (another revision) is adopted, then replaced by the DaemonSet's own pod
    const first = await settled('v1');
    // in place: the same pod
    await admin.mergePatch(KruiseResources.DaemonSet, 'default', 'rbac-ads', {
      spec: { template: { spec: { containers: [container('v2')] } } },
    });
    expect((await settled('v2'))!.metadata?.uid).toBe(first!.metadata?.uid);
    await admin.delete(KruiseResources.DaemonSet, 'default', 'rbac-ads');
  }, 240_000);

  it('runs a BroadcastJob scenario (pods created and deleted, Pause stored, TTL deletion)', async () => {
    const bcj = (name: string, script: string, spec: Record<string, unknown>) => ({
      metadata: { name, namespace: 'default' },
      spec: {
        template: {
          spec: {
            restartPolicy: 'Never',
            terminationGracePeriodSeconds: 1,
            containers: [{ name: 'main', image: `${registry()}/busybox:v1`, command: ['sh', '-c', script] }],
          },
        },
        ...spec,
      },
    });
    // a failed pod pauses the job: spec.paused patched, status written
    await admin.create(
      KruiseResources.BroadcastJob,
      bcj('rbac-pause', 'exit 1', { failurePolicy: { type: 'Pause' } }),
    );
    await waitFor(async () => {
      const job = await get(KruiseResources.BroadcastJob, 'default', 'rbac-pause');
      return job?.spec?.paused === true && job.status?.phase === 'paused';
    }, 60_000);
    // a finished job goes after its TTL
    await admin.create(
      KruiseResources.BroadcastJob,
      bcj('rbac-ttl', 'true', { completionPolicy: { ttlSecondsAfterFinished: 0 } }),
    );
    await waitFor(
      async () => (await get(KruiseResources.BroadcastJob, 'default', 'rbac-ttl')) === undefined,
      60_000,
    );
    // a running pod deleted by the deadline
    await admin.create(
      KruiseResources.BroadcastJob,
      bcj('rbac-deadline', 'sleep 60', { completionPolicy: { activeDeadlineSeconds: 2 } }),
    );
    await waitFor(async () => {
      const job = await get(KruiseResources.BroadcastJob, 'default', 'rbac-deadline');
      return job?.status?.phase === 'failed';
    }, 60_000);
  }, 120_000);

  it('runs a container launch priority scenario (barrier ConfigMap created and patched, pod annotated)', async () => {
    await admin.create(Resources.Pod, {
      metadata: {
        name: 'ordered',
        namespace: 'default',
        annotations: { 'apps.kruise.io/container-launch-priority': 'Ordered' },
      },
      spec: {
        nodeName: NODE,
        containers: [
          { name: 'first', image: `${registry()}/busybox:v1`, command: LOOP },
          { name: 'second', image: `${registry()}/busybox:v1`, command: LOOP },
        ],
      },
    });
    const pod = await waitFor(async () => {
      const p = await admin.get(Resources.Pod, 'default', 'ordered');
      return p.metadata?.annotations?.['apps.kruise.io/container-launch-priority-completed'] === 'true' &&
        p.status?.containerStatuses?.every((s: any) => s.ready)
        ? p
        : undefined;
    }, 60_000);
    expect((await admin.get(Resources.ConfigMap, 'default', 'ordered-barrier')).data).toEqual({
      p_0: 'true',
      'p_-1': 'true',
    });
    expect(pod.status.containerStatuses.map((s: any) => s.restartCount)).toEqual([0, 0]);
  }, 90_000);

  it('runs an AdvancedCronJob scenario (a Job, a BroadcastJob and an ImageListPullJob every second, each replacing the last)', async () => {
    const pod = {
      spec: {
        restartPolicy: 'Never',
        containers: [{ name: 'main', image: `${registry()}/busybox:v1`, command: ['true'] }],
      },
    };
    const templates = {
      // No Job controller runs here: the Job stays active and the next start time replaces it.
      job: { jobTemplate: { spec: { template: pod } } },
      // Paused: the replacement is what is exercised, not the BroadcastJob's pods.
      bcj: { broadcastJobTemplate: { spec: { paused: true, template: pod } } },
      // The node's daemon pulls the image, but each run is replaced every second or kept as history.
      ilpj: {
        imageListPullJobTemplate: { spec: { images: [`${registry()}/busybox:v1`], completionPolicy: {} } },
      },
    };
    const resources = {
      job: Resources.Job,
      bcj: KruiseResources.BroadcastJob,
      ilpj: KruiseResources.ImageListPullJob,
    };
    const runs = async (kind: keyof typeof templates) =>
      (await admin.list<KubeObject>(resources[kind], { namespace: 'default' })).items
        .filter((j) => j.metadata?.name?.startsWith(`rbac-acj-${kind}-`) && !j.metadata.deletionTimestamp)
        .map((j) => j.metadata!.name!);
    for (const [kind, template] of Object.entries(templates))
      await admin.create(KruiseResources.AdvancedCronJob, {
        metadata: { name: `rbac-acj-${kind}`, namespace: 'default' },
        spec: { schedule: '@every 1s', concurrencyPolicy: 'Replace', template },
      } as KubeObject);
    for (const kind of Object.keys(templates) as (keyof typeof templates)[]) {
      const [first] = await waitFor(async () => {
        const names = await runs(kind);
        return names.length ? names : undefined;
      });
      // The next start time deletes the active run (Replace) and creates its own.
      await waitFor(async () => {
        const names = await runs(kind);
        return names.length > 0 && !names.includes(first!) ? names : undefined;
      });
      await waitFor(
        async () =>
          (await admin.get(KruiseResources.AdvancedCronJob, 'default', `rbac-acj-${kind}`)).status
            ?.lastScheduleTime,
      );
    }
    for (const kind of Object.keys(templates))
      await admin.delete(KruiseResources.AdvancedCronJob, 'default', `rbac-acj-${kind}`);
  }, 120_000);

  it('runs a SidecarTerminator scenario (the CRR created, an ignore-exit-code pod ended through pods/status)', async () => {
    const job = (name: string, env: object[]) =>
      admin.create(Resources.Pod, {
        metadata: { name, namespace: 'default' },
        spec: {
          nodeName: NODE,
          restartPolicy: 'Never',
          terminationGracePeriodSeconds: 1,
          containers: [
            { name: 'main', image: `${registry()}/busybox:v1`, command: ['sh', '-c', 'sleep 1'] },
            { name: 'sidecar', image: `${registry()}/busybox:v1`, command: LOOP, env },
          ],
        },
      });
    const exit = { name: 'KRUISE_TERMINATE_SIDECAR_WHEN_JOB_EXIT', value: 'true' };
    const normal = await job('rbac-job', [exit]);
    const ignoring = await job('rbac-job-ignore', [
      exit,
      { name: 'KRUISE_TERMINATE_SIDECAR_IGNORE_EXIT_CODE', value: 'true' },
    ]);
    for (const pod of [normal, ignoring]) {
      const done = await waitFor(async () => {
        const p = await admin.get(Resources.Pod, 'default', pod.metadata!.name!);
        return p.status?.phase === 'Succeeded' ? p : undefined;
      }, 60_000);
      expect(
        (
          await admin.get(
            KruiseResources.ContainerRecreateRequest,
            'default',
            `sidecar-termination-${pod.metadata!.uid}`,
          )
        ).spec.podName,
      ).toBe(pod.metadata!.name);
      expect(done.status.conditions.some((c: any) => c.type === 'SidecarTerminated')).toBe(pod === ignoring);
    }
  }, 120_000);
  it('runs a SidecarSet injection scenario (SidecarSets, namespaces and a pinned revision read from caches)', async () => {
    await admin.create(Resources.Namespace, { metadata: { name: 'rbac-sidecar', labels: { mesh: 'on' } } });
    await admin.create(Resources.ControllerRevision, {
      metadata: {
        name: 'rbac-mesh-r1',
        namespace: 'kruise-system',
        labels: { 'kruise.io/sidecarset-name': 'rbac-mesh' },
      },
      data: {
        spec: { $patch: 'replace', containers: [{ name: 'proxy', image: `${registry()}/busybox:v1` }] },
      },
      revision: 1,
    });
    await admin.create(KruiseResources.SidecarSet, {
      metadata: { name: 'rbac-mesh' },
      spec: {
        selector: { matchLabels: { app: 'meshed' } },
        namespaceSelector: { matchLabels: { mesh: 'on' } },
        containers: [{ name: 'proxy', image: `${registry()}/busybox:v2` }],
        injectionStrategy: { revision: { revisionName: 'rbac-mesh-r1' } },
      },
    } as KubeObject);
    const pod = {
      metadata: { name: 'meshed', namespace: 'rbac-sidecar', labels: { app: 'meshed' } },
      spec: { containers: [{ name: 'app', image: `${registry()}/busybox:v1`, command: LOOP }] },
    };
    const created = await waitFor(async () => {
      const p = await admin.create(Resources.Pod, pod, { dryRun: true });
      return p.spec.containers.length === 2 ? p : undefined;
    });
    expect(created.spec.containers.map((c: any) => `${c.name}=${c.image}`)).toEqual([
      `app=${registry()}/busybox:v1`,
      `proxy=${registry()}/busybox:v1`,
    ]);
    await admin.delete(KruiseResources.SidecarSet, undefined, 'rbac-mesh');
  });

  it('runs a SidecarSet admission scenario (other SidecarSets listed, a pinned revision and the whitelist read)', async () => {
    // The webhook reads the revision by name and kruise-configuration in the Kruise namespace.
    await admin.create(Resources.ControllerRevision, {
      metadata: {
        name: 'rbac-ss-1',
        namespace: 'kruise-system',
        labels: { 'kruise.io/sidecarset-name': 'rbac-ss' },
      },
      data: {},
      revision: 1,
    } as KubeObject);
    await admin.create(Resources.ConfigMap, {
      metadata: { name: 'kruise-configuration', namespace: 'kruise-system' },
      data: {
        SidecarSet_PatchPodMetadata_WhiteList: JSON.stringify({
          rules: [{ allowedAnnotationKeyExprs: ['^rbac\\.io/'] }],
        }),
      },
    } as KubeObject);
    // (a selector no pod of the other scenarios carries)
    const sidecarSet = (name: string, extra: Record<string, unknown> = {}) =>
      ({
        metadata: { name },
        spec: {
          selector: { matchLabels: { app: 'rbac-ss' } },
          containers: [{ name: 'rbac-sidecar', image: `${registry()}/busybox:v1`, command: LOOP }],
          ...extra,
        },
      }) as KubeObject;
    await admin.create(
      KruiseResources.SidecarSet,
      sidecarSet('rbac-ss', {
        injectionStrategy: { revision: { revisionName: 'rbac-ss-1' } },
        patchPodMetadata: [{ annotations: { 'rbac.io/a': 'b' } }],
      }),
    );
    // the other SidecarSets are listed: the same container on the same pods is refused
    const err = await admin.create(KruiseResources.SidecarSet, sidecarSet('rbac-ss-2')).catch((e) => e);
    expect(err.message).toContain('container rbac-sidecar already exist in rbac-ss');
    await admin.delete(KruiseResources.SidecarSet, undefined, 'rbac-ss');
  });

  it('runs a SidecarSet scenario (revision and its customVersion label, status, in-place sidecar upgrade)', async () => {
    const busybox = (tag: string) => `${registry()}/busybox:${tag}`;
    const sidecarSet = (customVersion: string, tag: string) =>
      stampedSidecarSet({
        apiVersion: 'apps.kruise.io/v1beta1',
        kind: 'SidecarSet',
        metadata: { name: 'rbac-upgrade' },
        spec: {
          selector: { matchLabels: { app: 'rbac-upgrade' } },
          customVersion,
          containers: [{ name: 'sidecar', image: busybox(tag), command: LOOP }],
        },
      });
    const replace = (customVersion: string, tag: string) =>
      retryOnConflict(async () => {
        const current = await admin.get(KruiseResources.SidecarSet, undefined, 'rbac-upgrade');
        const next = sidecarSet(customVersion, tag);
        await admin.update(KruiseResources.SidecarSet, {
          ...next,
          metadata: {
            ...current.metadata,
            annotations: (next.metadata as KubeObject['metadata'])?.annotations,
          },
        } as KubeObject);
      });
    await admin.create(KruiseResources.SidecarSet, sidecarSet('a', 'v1') as KubeObject);
    const stored = await waitFor(async () => {
      const s = await admin.get(KruiseResources.SidecarSet, undefined, 'rbac-upgrade');
      return s.status?.latestRevision ? (s as SidecarSet) : undefined;
    });
    await admin.create(
      Resources.Pod,
      injectedPod(
        stored,
        {
          metadata: { name: 'rbac-upgrade-pod', namespace: 'default', labels: { app: 'rbac-upgrade' } },
          spec: {
            nodeName: NODE,
            terminationGracePeriodSeconds: 1,
            containers: [{ name: 'app', image: busybox('v1'), command: LOOP }],
          },
        },
        { command: LOOP },
      ),
    );
    const status = (check: (st: Record<string, any>) => boolean) =>
      waitFor(async () => {
        const s = await admin.get(KruiseResources.SidecarSet, undefined, 'rbac-upgrade');
        return s.status?.observedGeneration === s.metadata?.generation && check(s.status)
          ? s.status
          : undefined;
      }, 90_000);
    await status((st) => st.readyPods === 1);
    const uid = (await admin.get(Resources.Pod, 'default', 'rbac-upgrade-pod')).metadata?.uid;
    // customVersion alone: the same revision, its label patched
    await replace('b', 'v1');
    await waitFor(async () => {
      const revisions = await admin.list(Resources.ControllerRevision, {
        namespace: 'kruise-system',
        labelSelector: 'kruise.io/sidecarset-name=rbac-upgrade',
      });
      return revisions.items.some(
        (r) => r.metadata?.labels?.['apps.kruise.io/sidecarset-custom-version'] === 'b',
      )
        ? true
        : undefined;
    });
    // a new image: the sidecar upgraded in place
    await replace('b', 'v2');
    await status((st) => st.updatedReadyPods === 1);
    const pod = await admin.get(Resources.Pod, 'default', 'rbac-upgrade-pod');
    expect(pod.metadata?.uid).toBe(uid);
    expect(pod.spec?.containers?.find((c: { name: string }) => c.name === 'sidecar')?.image).toBe(
      busybox('v2'),
    );
    await admin.delete(Resources.Pod, 'default', 'rbac-upgrade-pod');
    await admin.delete(KruiseResources.SidecarSet, undefined, 'rbac-upgrade');
  }, 180_000);

  it('runs a deletion protection scenario (a Cascading namespace: its pods and claims listed at DELETE)', async () => {
    const LABEL = 'policy.kruise.io/delete-protection';
    await admin.create(Resources.Namespace, {
      metadata: { name: 'rbac-protected', labels: { [LABEL]: 'Cascading' } },
    });
    // no pods and no Bound claims: both are listed (pods, then claims) and the deletion goes
    await admin.delete(Resources.Namespace, undefined, 'rbac-protected');
    await admin.create(Resources.Namespace, {
      metadata: { name: 'rbac-protected-2', labels: { [LABEL]: 'Cascading' } },
    });
    await admin.create(Resources.Pod, {
      metadata: { name: 'rbac-protected-pod', namespace: 'rbac-protected-2' },
      spec: { containers: [{ name: 'app', image: `${registry()}/busybox:v1`, command: LOOP }] },
    });
    const err = await admin.delete(Resources.Namespace, undefined, 'rbac-protected-2').catch((e) => e);
    expect(err.message).toBe(
      `admission webhook "vnamespace.kb.io" denied the request: forbidden by ResourcesProtectionDeletion for ${LABEL}=Cascading and active pods 1>0`,
    );
    await admin.delete(Resources.Pod, 'rbac-protected-2', 'rbac-protected-pod', { gracePeriodSeconds: 0 });
    await admin.delete(Resources.Namespace, undefined, 'rbac-protected-2');
  });

  it('runs a PodUnavailableBudget scenario (budgets, their status, marked pods, workloads through the controller finder)', async () => {
    const pub = KruiseResources.PodUnavailableBudget;
    await admin.create(KruiseResources.CloneSet, {
      metadata: { name: 'rbac-pub', namespace: 'default' },
      spec: {
        replicas: 2,
        selector: { matchLabels: { app: 'rbac-pub' } },
        template: {
          metadata: { labels: { app: 'rbac-pub' } },
          spec: {
            terminationGracePeriodSeconds: 1,
            containers: [{ name: 'app', image: `${registry()}/busybox:v1`, command: LOOP }],
          },
        },
      },
    });
    const ready = async () =>
      (await admin.list(Resources.Pod, { namespace: 'default', labelSelector: 'app=rbac-pub' })).items.filter(
        (p) =>
          !p.metadata?.deletionTimestamp &&
          p.status?.conditions?.some(
            (c: { type: string; status: string }) => c.type === 'Ready' && c.status === 'True',
          ),
      );
    await waitFor(async () => ((await ready()).length === 2 ? true : undefined), 60_000);
    // created after its pods: the controller marks them (pods patch) and counts them (status update)
    await admin.create(pub, {
      metadata: { name: 'rbac-pub', namespace: 'default' },
      spec: {
        targetRef: { apiVersion: 'apps.kruise.io/v1alpha1', kind: 'CloneSet', name: 'rbac-pub' },
        maxUnavailable: 1,
      },
    });
    await waitFor(async () =>
      (await get(pub, 'default', 'rbac-pub'))?.status?.unavailableAllowed === 1 ? true : undefined,
    );
    const [first, second] = (await ready()).map((p) => p.metadata!.name!);
    await waitFor(async () =>
      (await admin.get(Resources.Pod, 'default', second!)).metadata?.annotations?.[
        'kruise.io/related-pub'
      ] === 'rbac-pub'
        ? true
        : undefined,
    );
    await admin.delete(Resources.Pod, 'default', first!);
    const refused = await admin.delete(Resources.Pod, 'default', second!).catch((e) => e);
    expect(refused.message).toContain('podunavailablebudget.policy.kruise.io "rbac-pub" is forbidden');
    // a kind the finder reads through its scale subresource, and one it reads as an object
    await admin.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {
      body: widgetCrd({
        group: 'rbac.example.com',
        subresources: {
          scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' },
        },
      }),
    });
    await waitFor(() =>
      admin
        .request('GET', '/apis/rbac.example.com/v1/namespaces/default/widgets')
        .then(() => true)
        .catch(() => undefined),
    );
    await admin.request('POST', '/apis/rbac.example.com/v1/namespaces/default/widgets', {
      body: {
        apiVersion: 'rbac.example.com/v1',
        kind: 'Widget',
        metadata: { name: 'w' },
        spec: { replicas: 3 },
      },
    });
    await admin.create(pub, {
      metadata: { name: 'rbac-pub-widget', namespace: 'default' },
      spec: { targetRef: { apiVersion: 'rbac.example.com/v1', kind: 'Widget', name: 'w' }, minAvailable: 1 },
    });
    await waitFor(async () =>
      (await get(pub, 'default', 'rbac-pub-widget'))?.status?.totalReplicas === 3 ? true : undefined,
    );
    const owner = await admin.create(Resources.ConfigMap, {
      metadata: { name: 'rbac-pub-owner', namespace: 'default' },
    });
    await admin.create(pub, {
      metadata: { name: 'rbac-pub-owned', namespace: 'default' },
      spec: { selector: { matchLabels: { app: 'rbac-pub-owned' } }, minAvailable: 1 },
    });
    await admin.create(Resources.Pod, {
      metadata: {
        name: 'rbac-pub-owned',
        namespace: 'default',
        labels: { app: 'rbac-pub-owned' },
        ownerReferences: [
          {
            apiVersion: 'v1',
            kind: 'ConfigMap',
            name: 'rbac-pub-owner',
            uid: owner.metadata!.uid!,
            controller: true,
          },
        ],
      },
      spec: {
        terminationGracePeriodSeconds: 1,
        containers: [{ name: 'app', image: `${registry()}/busybox:v1`, command: LOOP }],
      },
    });
    await waitFor(async () =>
      (await admin.get(Resources.Pod, 'default', 'rbac-pub-owned')).metadata?.annotations?.[
        'kruise.io/related-pub'
      ] === 'rbac-pub-owned'
        ? true
        : undefined,
    );
    await admin.delete(KruiseResources.CloneSet, 'default', 'rbac-pub');
    for (const name of ['rbac-pub', 'rbac-pub-widget', 'rbac-pub-owned'])
      await admin.delete(pub, 'default', name);
    await admin.delete(Resources.Pod, 'default', 'rbac-pub-owned', { gracePeriodSeconds: 0 });
  }, 120_000);

  it('denied no request of the manager or the daemon', () => {
    const denied = cp.audit.list((r) => (r.user === MANAGER || r.user === DAEMON) && r.code === 403);
    expect(denied.map((r) => `${r.user} ${r.verb} ${r.path} -> ${r.code}`)).toEqual([]);
    expect(cp.audit.list((r) => r.user === MANAGER).length).toBeGreaterThan(0);
    expect(cp.audit.list((r) => r.user === DAEMON).length).toBeGreaterThan(0);
  });

  it('used every rule it granted, or records why not', async () => {
    // watches are audited when they end; the local node (admin's) runs on, so the pods can still go
    for (const p of programs) if (p !== localNode) await p.stop();
    const roles = [
      ...(
        await admin.list<KubeObject>({
          group: 'rbac.authorization.k8s.io',
          version: 'v1',
          plural: 'clusterroles',
          kind: 'ClusterRole',
          namespaced: false,
        })
      ).items,
      ...(
        await admin.list<KubeObject>({
          group: 'rbac.authorization.k8s.io',
          version: 'v1',
          plural: 'roles',
          kind: 'Role',
          namespaced: true,
        })
      ).items,
    ].filter((r) => r.metadata?.name?.startsWith('kruise-'));
    // every recorded reason names a grant that exists: a rule removed takes its reason with it
    const granted = (j: (typeof JUSTIFIED_UNUSED)[number]) =>
      roles.some(
        (role) =>
          role.metadata?.name === j.role &&
          (role.rules as PolicyRule[]).some(
            (r) => r.resources.includes(j.resource) && r.verbs.includes(j.verb),
          ),
      );
    expect(
      JUSTIFIED_UNUSED.filter((j) => !granted(j)).map((j) => `${j.role}: ${j.verb} ${j.resource}`),
    ).toEqual([]);
    const unused: string[] = [];
    for (const role of roles) {
      const user = role.metadata!.name!.startsWith('kruise-manager') ? MANAGER : DAEMON;
      const records = cp.audit.list((r) => r.user === user);
      for (const rule of role.rules as PolicyRule[])
        for (const resource of rule.resources)
          for (const verb of rule.verbs) {
            if (records.some((r) => uses(r, rule, resource, verb, role.metadata?.namespace))) continue;
            const why = JUSTIFIED_UNUSED.find(
              (j) => j.role === role.metadata?.name && j.resource === resource && j.verb === verb,
            );
            if (!why) unused.push(`${role.kind}/${role.metadata?.name}: ${verb} ${resource}`);
          }
    }
    expect(unused).toEqual([]);
  });
});
