import { randomUUID } from 'node:crypto';
import { Agent, request } from 'node:https';
import { KruiseResources } from '@kruise/api';
import { KubeClient, type KubeObject, Resources } from '@kruise/runtime';
import { installKruiseApi, pointWebhookService } from '@kruise/stack/cluster-bootstrap';
import { startManagerProcess } from '@kruise/stack/program-recipes';
import { eventually } from '../support/poll.ts';
import { startControlPlaneProcess } from './control-plane-process.ts';
import { figure } from './figures.ts';
import { quantile } from './stats.ts';

const RATE = 500;
const SECONDS = 6;
const ROUNDS = 3;
const SERVICE_HOST = 'kruise-webhook-service.kruise-system.svc';

/** One kind of review the load cycles through: its webhook path and what it sends. */
interface Review {
  path: string;
  resource: string;
  kind: string;
  object: KubeObject;
}

/** Sends one AdmissionReview; resolves with the response's `response` once its body has arrived. */
function post(agent: Agent, port: number, review: Review): Promise<{ allowed: boolean }> {
  const body = JSON.stringify({
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: {
      uid: randomUUID(),
      kind: { group: 'apps.kruise.io', version: 'v1alpha1', kind: review.kind },
      resource: { group: 'apps.kruise.io', version: 'v1alpha1', resource: review.resource },
      name: review.object.metadata?.name,
      namespace: 'default',
      operation: 'CREATE',
      userInfo: { username: 'bench' },
      object: review.object,
    },
  });
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        servername: SERVICE_HOST,
        path: review.path,
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        let text = '';
        res.on('data', (c) => (text += c));
        res.on('end', () => {
          if (res.statusCode !== 200) reject(new Error(`${review.path}: HTTP ${res.statusCode} ${text}`));
          else resolve(JSON.parse(text).response);
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * `RATE` reviews a second for `SECONDS`, open loop: each is sent at its scheduled time whatever the
 * earlier ones are doing, and its latency counts from that time (a slow answer cannot hide the
 * ones queued behind it). Returns the latencies in ms.
 */
async function openLoop(
  agent: Agent,
  port: number,
  reviews: Review[],
): Promise<{ latencies: number[]; fromSend: number[] }> {
  const total = RATE * SECONDS;
  const interval = 1000 / RATE;
  const latencies: number[] = [];
  const fromSend: number[] = [];
  const pending: Promise<void>[] = [];
  const start = performance.now();
  let sent = 0;
  while (sent < total) {
    const now = performance.now();
    while (sent < total && start + sent * interval <= now) {
      const scheduled = start + sent * interval;
      const review = reviews[sent % reviews.length]!;
      const sentAt = performance.now();
      pending.push(
        post(agent, port, review).then((r) => {
          if (!r.allowed) throw new Error(`${review.path} denied the bench's review`);
          latencies.push(performance.now() - scheduled);
          fromSend.push(performance.now() - sentAt);
        }),
      );
      sent++;
    }
    await new Promise((r) => setTimeout(r, 1));
  }
  await Promise.all(pending);
  return { latencies, fromSend };
}

/**
 * Admission: kruise-manager as its own process; reviews of ImagePullJob and CloneSet creates
 * (mutating and validating, the objects as the API server stores them) at 500 a second over
 * keep-alive HTTPS, as kube-apiserver sends them; p50 and p99 per round.
 */
export async function benchAdmission(): Promise<void> {
  const cp = await startControlPlaneProcess();
  const client = KubeClient.load(cp.kubeconfigPath);
  let agent: Agent | undefined;
  let manager: Awaited<ReturnType<typeof startManagerProcess>>['program'] | undefined;
  try {
    await installKruiseApi(client);
    const started = await startManagerProcess(cp.kubeconfigPath);
    manager = started.program;
    await pointWebhookService(client, started.webhookPort);
    const webhookConfig = () =>
      client.get(Resources.MutatingWebhookConfiguration, undefined, 'kruise-mutating-webhook-configuration');
    await eventually(
      async () => Boolean((await webhookConfig()).webhooks?.[0]?.clientConfig?.caBundle),
      30_000,
      100,
    );
    const mutating = await webhookConfig();
    const ca = Buffer.from(mutating.webhooks[0].clientConfig.caBundle, 'base64').toString();
    agent = new Agent({ keepAlive: true, maxSockets: 64, ca });
    // Objects as stored (defaulted by the webhooks through the API server), then reviewed directly.
    const job = await client.create(KruiseResources.ImagePullJob, {
      metadata: { name: 'bench-job', namespace: 'default' },
      spec: { image: 'busybox:v1', parallelism: 2, completionPolicy: { type: 'Always' } },
    });
    const cloneSet = await client.create(KruiseResources.CloneSet, {
      metadata: { name: 'bench-cs', namespace: 'default' },
      spec: {
        replicas: 3,
        selector: { matchLabels: { app: 'bench' } },
        template: {
          metadata: { labels: { app: 'bench' } },
          spec: { containers: [{ name: 'main', image: 'busybox:v1' }] },
        },
      },
    });
    const path = (m: boolean, k: string) => `/${m ? 'mutate' : 'validate'}-apps-kruise-io-v1alpha1-${k}`;
    const reviews: Review[] = [
      { path: path(true, 'imagepulljob'), resource: 'imagepulljobs', kind: 'ImagePullJob', object: job },
      { path: path(false, 'imagepulljob'), resource: 'imagepulljobs', kind: 'ImagePullJob', object: job },
      { path: path(true, 'cloneset'), resource: 'clonesets', kind: 'CloneSet', object: cloneSet },
      { path: path(false, 'cloneset'), resource: 'clonesets', kind: 'CloneSet', object: cloneSet },
    ];
    await openLoop(agent, started.webhookPort, reviews); // warm-up round, not counted
    const p50s: number[] = [];
    const p99s: number[] = [];
    const sendP99s: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const { latencies, fromSend } = await openLoop(agent, started.webhookPort, reviews);
      p50s.push(quantile(latencies, 0.5));
      p99s.push(quantile(latencies, 0.99));
      sendP99s.push(quantile(fromSend, 0.99));
    }
    const what = `${RATE} reviews/s for ${SECONDS} s (ImagePullJob and CloneSet, mutating and validating)`;
    figure('admission.p50', p50s, { label: `admission review p50, ${what}`, unit: 'ms', digits: 2 });
    figure('admission.p99', p99s, { digits: 2 });
    // The same from the moment the request left, not its scheduled time: the gap is the load generator's own delay.
    figure('admission.p99-from-send', sendP99s, {
      label: 'admission review p99 from the actual send (load generator delays excluded)',
      unit: 'ms',
      digits: 2,
    });
  } finally {
    agent?.destroy();
    await manager?.stop();
    await cp.stop();
  }
}
