import { KruiseResources, type PodUnavailableBudget } from '@kruise/api';
import { type KubeClient, type KubeObject, Resources, TooManyRequestsError } from '@kruise/runtime';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type KubectlSession, kubectlSession } from '../../../../test/support/kubectl.ts';
import {
  available,
  cloneSet,
  eventsOf,
  eventually,
  podsOf,
  runPod,
  runUntil,
  setImage,
  useCloneSetEnv,
} from '../cloneset/harness.ts';

/**
 * PodUnavailableBudgets against the control plane with kruise-manager (webhooks, CloneSet and
 * budget controllers), pods played as a kubelet would report them: the budget's status, the pods
 * it marks, refusals in upstream's words through kubectl, dry runs and opt-outs, evictions, pods
 * that came before their budget's webhook mark (#1857), in-place updates paced by the budget, and
 * surge pods beside specified-delete ones (#2175).
 */
let client: KubeClient;
const env = useCloneSetEnv(
  ['--feature-gates=ImagePullJobGate=true,PodUnavailableBudgetUpdateGate=true'],
  (e) => {
    client = e.client;
  },
);
let session: KubectlSession;
beforeAll(() => {
  session = kubectlSession(env.cp, 'pub-');
});
afterAll(() => session?.dispose());

const PUB = KruiseResources.PodUnavailableBudget;
const budget = (name: string, spec: PodUnavailableBudget['spec'], ns = 'default', annotations = {}) =>
  client.create(PUB, { metadata: { name, namespace: ns, annotations }, spec } as KubeObject);
const statusOf = async (name: string, ns = 'default') =>
  ((await client.get(PUB, ns, name)) as PodUnavailableBudget).status;
const statusWhen = (
  name: string,
  check: (s: NonNullable<PodUnavailableBudget['status']>) => boolean,
  ns = 'default',
) =>
  eventually(
    async () => {
      const s = await statusOf(name, ns);
      return s && check(s) ? s : undefined;
    },
    { timeoutMs: 20_000, intervalMs: 50, what: `budget ${name}'s status to pass ${check}` },
  );
const refusal = (pub: string) =>
  `Error from server (Forbidden): admission webhook "vpod.kb.io" denied the request: podunavailablebudget.policy.kruise.io "${pub}" is forbidden: pub unavailable allowed is negative`;
const ready = (p: Pod) =>
  !p.metadata?.deletionTimestamp && p.status?.conditions?.find((c) => c.type === 'Ready')?.status === 'True';

describe('PodUnavailableBudget (control plane, kruise-manager)', () => {
  it('counts a CloneSet, marks its pods, and refuses the second deletion with upstream words', async () => {
    await client.create(KruiseResources.CloneSet, cloneSet('web', { replicas: 4 }));
    await available(client, 'web', 4);
    await budget('web', {
      targetRef: { apiVersion: 'apps.kruise.io/v1alpha1', kind: 'CloneSet', name: 'web' },
      maxUnavailable: 1,
    });
    expect(await statusWhen('web', (s) => s.unavailableAllowed === 1)).toMatchObject({
      totalReplicas: 4,
      desiredAvailable: 3,
      currentAvailable: 4,
      unavailableAllowed: 1,
      observedGeneration: 1,
    });
    const pods = await podsOf(client, 'web');
    for (const p of pods) expect(p.metadata?.annotations?.['kruise.io/related-pub']).toBe('web');
    const [first, second] = pods.map((p) => p.metadata!.name!);
    // a dry run is checked but takes nothing
    await session.ok(['delete', 'pod', first!, '--dry-run=server', '--wait=false']);
    expect((await statusOf('web'))?.unavailableAllowed).toBe(1);
    await session.ok(['delete', 'pod', first!, '--wait=false']);
    expect(await session.refusal(['delete', 'pod', second!, '--wait=false'])).toBe(refusal('web'));
    // the deleted pod is terminating (no kubelet ends it here): no longer counted, nothing more allowed
    expect(await statusWhen('web', (s) => s.currentAvailable === 3)).toMatchObject({ unavailableAllowed: 0 });
    expect(await eventsOf(client, second!)).toContain(
      'Warning PubPreventPodDeletion openkruise pub prevents pod deletion',
    );
    // an eviction is refused with 429, as a PodDisruptionBudget refuses one
    const evicted = client.request('POST', `/api/v1/namespaces/default/pods/${second}/eviction`, {
      body: { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: second, namespace: 'default' } },
    });
    await expect(evicted).rejects.toBeInstanceOf(TooManyRequestsError);
    await expect(evicted).rejects.toThrow(
      'admission webhook "vpodeviction.kb.io" denied the request: podunavailablebudget.policy.kruise.io "web" is forbidden: pub unavailable allowed is negative',
    );
    // a pod that opts out goes whatever the budget says
    await session.ok(['annotate', 'pod', second!, 'pub.kruise.io/no-protect=true']);
    await session.ok(['delete', 'pod', second!, '--wait=false']);
    // the replacements come up, and the budget allows one again
    await available(client, 'web', 4);
    expect(await statusWhen('web', (s) => s.unavailableAllowed === 1 && !s.disruptedPods)).toMatchObject({
      currentAvailable: 4,
    });
  });

  it('paces a CloneSet in-place update to the budget whatever the CloneSet allows', async () => {
    await client.mergePatch(KruiseResources.CloneSet, 'default', 'web', {
      spec: { updateStrategy: { type: 'InPlaceIfPossible', maxUnavailable: '100%' } },
    });
    await setImage(client, 'web', 'busybox:2');
    let most = 0;
    let recorded = 0;
    // a kubelet that takes a little over a second to restart a container in place
    const downSince = new Map<string, number>();
    await eventually(
      async () => {
        const pods = await podsOf(client, 'web');
        most = Math.max(most, 4 - pods.filter(ready).length);
        recorded = Math.max(recorded, Object.keys((await statusOf('web'))?.unavailablePods ?? {}).length);
        for (const p of pods.filter((x) => !ready(x))) {
          const name = p.metadata!.name!;
          if (!downSince.has(name)) downSince.set(name, Date.now());
          if (Date.now() - downSince.get(name)! < 1100) continue;
          downSince.delete(name);
          await runPod(client, p).catch(() => undefined);
        }
        return (
          pods.length === 4 && pods.every((p) => p.spec?.containers[0]?.image === 'busybox:2' && ready(p))
        );
      },
      { timeoutMs: 25_000, intervalMs: 50, what: 'the in-place update to finish' },
    );
    expect(most).toBe(1);
    expect(recorded).toBe(1);
  });

  it('picks up pods created before any mark (no pod webhook in their namespace), and marks them (#1857)', async () => {
    // namespaces labelled control-plane skip the pod webhook: their pods come unmarked
    await client.create(Resources.Namespace, {
      metadata: { name: 'unmarked', labels: { 'control-plane': 'x' } },
    });
    await budget('batch', { selector: { matchLabels: { app: 'batch' } }, minAvailable: 1 }, 'unmarked');
    await statusWhen('batch', (s) => s.totalReplicas === 0, 'unmarked');
    for (const name of ['b1', 'b2']) {
      await client.create(Resources.Pod, {
        metadata: { name, namespace: 'unmarked', labels: { app: 'batch' } },
        spec: { containers: [{ name: 'main', image: 'busybox:1' }] },
      });
      await runPod(client, (await client.get(Resources.Pod, 'unmarked', name)) as unknown as Pod);
    }
    expect(await statusWhen('batch', (s) => s.currentAvailable === 2, 'unmarked')).toMatchObject({
      desiredAvailable: 1,
      unavailableAllowed: 1,
    });
    for (const name of ['b1', 'b2'])
      await eventually(
        async () =>
          (await client.get(Resources.Pod, 'unmarked', name)).metadata?.annotations?.[
            'kruise.io/related-pub'
          ] === 'batch',
        { timeoutMs: 10_000, what: `pod ${name} marked` },
      );
  });

  it('never allows more than maxUnavailable while surge pods replace specified-delete ones (#2175)', async () => {
    await client.create(
      KruiseResources.CloneSet,
      cloneSet('surge', { replicas: 6, updateStrategy: { maxUnavailable: 0, maxSurge: 1 } }),
    );
    await available(client, 'surge', 6);
    await budget('surge', {
      targetRef: { apiVersion: 'apps.kruise.io/v1alpha1', kind: 'CloneSet', name: 'surge' },
      maxUnavailable: 1,
    });
    await statusWhen('surge', (s) => s.unavailableAllowed === 1);
    for (const p of await podsOf(client, 'surge'))
      await client.mergePatch(Resources.Pod, 'default', p.metadata!.name!, {
        metadata: { labels: { 'apps.kruise.io/specified-delete': 'true' } },
      });
    let most = 0;
    let surged = false;
    await runUntil(
      client,
      'surge',
      async (pods) => {
        most = Math.max(most, (await statusOf('surge'))?.unavailableAllowed ?? 0);
        if (pods.length > 6) surged = true;
        return (
          pods.length === 6 &&
          pods.every((p) => !p.metadata?.labels?.['apps.kruise.io/specified-delete'] && ready(p))
        );
      },
      60_000,
    );
    expect(surged).toBe(true);
    expect(most).toBe(1);
  });

  it('holds no pod back once its workload is deleted (desired 0), so its pods can go', async () => {
    await client.delete(KruiseResources.CloneSet, 'default', 'surge', { propagationPolicy: 'Orphan' });
    expect(await statusWhen('surge', (s) => s.desiredAvailable === 0)).toMatchObject({ totalReplicas: 0 });
    const pods = await podsOf(client, 'surge');
    for (const p of pods.slice(0, 3)) await session.ok(['delete', 'pod', p.metadata!.name!, '--wait=false']);
  });
});
