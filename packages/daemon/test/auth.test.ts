import { KruiseResources, type NodeImage } from '@kruise/api';

import type { CriClient } from '@kruise/cri/client';
import { kubeTime } from '@kruise/kube-compat';
import { EventRecorder, type KubeClient, type KubeObject, Resources, silentLogger } from '@kruise/runtime';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ImagePuller } from '../src/imagepuller/puller.ts';
import { CriImageService } from '../src/runtime/cri-image-service.ts';
import { imageBlobs } from '../src/runtime/image-blobs.ts';
import { startDaemonTestEnv, until } from './env.ts';
import { type PrivateRegistry, startPrivateRegistry } from './private-registry.ts';
import { startTokenServer, type TokenServer } from './token-server.ts';

let client: KubeClient;
let cri: CriClient;
let stop: () => Promise<void>;
let reg: PrivateRegistry;
/** Token auth as Docker Hub: anonymous pulls allowed, wrong credentials refused. */
let tokens: TokenServer;
let open: PrivateRegistry;

beforeAll(async () => {
  ({ client, cri, stop } = await startDaemonTestEnv());
  await client.create(Resources.Namespace, { metadata: { name: 'kruise-daemon-config' } });
  reg = await startPrivateRegistry(
    inject('criStackDir'),
    `${inject('registry')}/busybox:v1`,
    'puller',
    's3cret-pw',
  );
  tokens = await startTokenServer('puller', 's3cret-pw');
  open = await startPrivateRegistry(
    inject('criStackDir'),
    `${inject('registry')}/busybox:v1`,
    'puller',
    's3cret-pw',
    tokens,
  );
});
afterAll(async () => {
  await reg.stop();
  await open.stop();
  await tokens.stop();
  await stop();
});

const dockerconfig = (host: string, user: string, pw: string) => ({
  '.dockerconfigjson': Buffer.from(
    JSON.stringify({
      auths: { [`https://${host}`]: { auth: Buffer.from(`${user}:${pw}`).toString('base64') } },
    }),
  ).toString('base64'),
});

async function pullWith(node: string, secretName: string | undefined, host = reg.host) {
  const now = kubeTime();
  await client.create(KruiseResources.NodeImage, {
    metadata: { name: node },
    spec: {
      images: {
        [`${host}/private`]: {
          ...(secretName ? { pullSecrets: [{ namespace: 'kruise-daemon-config', name: secretName }] } : {}),
          tags: [
            {
              tag: 'v1',
              version: 0,
              createdAt: now,
              imagePullPolicy: 'Always',
              pullPolicy: { timeoutSeconds: 20, backoffLimit: 0, ttlSecondsAfterFinished: 600 },
            },
          ],
        },
      },
    },
  });
  const puller = new ImagePuller({
    node,
    client,
    images: new CriImageService(cri, 'containerd', 100),
    recorder: new EventRecorder(client, 'kruise-daemon-imagepuller'),
    log: silentLogger,
    maxWorkers: 0,
    maxWorkersPerRegistry: 0,
    statusUpdateIntervalMs: 100,
    backoff: { initialMs: 50, maxMs: 100 },
  });
  puller.start();
  try {
    return await until(
      async () => {
        const ni = await client.get<NodeImage & KubeObject>(KruiseResources.NodeImage, undefined, node);
        const s = ni.status?.imageStatuses?.[`${host}/private`]?.tags?.[0];
        return s?.phase === 'Succeeded' || s?.phase === 'Failed' ? s : undefined;
      },
      { what: `the pull of ${host}/private:v1 on ${node} to finish` },
    );
  } finally {
    await puller.stop();
  }
}

describe('private registry', () => {
  it('pulls with the right secret from the daemon config namespace', async () => {
    await client.create(Resources.Secret, {
      metadata: { name: 'good', namespace: 'kruise-daemon-config' },
      type: 'kubernetes.io/dockerconfigjson',
      data: dockerconfig(reg.host, 'puller', 's3cret-pw'),
    });
    const status = await pullWith('auth-good', 'good');
    expect(status.phase).toBe('Succeeded');
    await cri.removeImage(`${reg.host}/private:v1`);
  });

  it('fails with a wrong password on a registry without anonymous access', async () => {
    await client.create(Resources.Secret, {
      metadata: { name: 'bad', namespace: 'kruise-daemon-config' },
      type: 'kubernetes.io/dockerconfigjson',
      data: dockerconfig(reg.host, 'puller', 'wrong'),
    });
    const status = await pullWith('auth-bad', 'bad');
    expect(status.phase).toBe('Failed');
    expect(status.message).toMatch(/unauthorized|401/i);
    expect(status.message).not.toContain('wrong');
  });

  it('fails with a wrong password, without falling back to an anonymous pull', async () => {
    const image = `${open.host}/private:v1`;
    // This registry serves anonymous pulls: without a secret the image comes.
    expect((await pullWith('auth-open-anonymous', undefined, open.host)).phase).toBe('Succeeded');
    expect(tokens.requests.anonymous).toBeGreaterThan(0);
    await cri.removeImage(image);
    await client.create(Resources.Secret, {
      metadata: { name: 'bad-open', namespace: 'kruise-daemon-config' },
      type: 'kubernetes.io/dockerconfigjson',
      data: dockerconfig(open.host, 'puller', 'wrong'),
    });
    const before = { ...tokens.requests };
    const status = await pullWith('auth-open-bad', 'bad-open', open.host);
    expect(status.phase).toBe('Failed');
    expect(status.message).toMatch(/unauthorized|401/i);
    expect(status.message).not.toContain('wrong');
    // The wrong credential was tried and refused; no anonymous token was asked for; no image came.
    expect(tokens.requests.rejected).toBeGreaterThan(before.rejected);
    expect(tokens.requests.anonymous).toBe(before.anonymous);
    expect((await cri.imageStatus(image)).image).toBeNull();
  });

  it("reads the blobs a pull downloads with the pull's credential (for live progress), and not without", async () => {
    const image = `${reg.host}/private:v1`;
    const blobs = await imageBlobs(image, {
      credential: { username: 'puller', password: 's3cret-pw', source: 't' },
    });
    await cri.pullImage(image, { auth: { username: 'puller', password: 's3cret-pw' } });
    const pulled = (await cri.imageStatus(image)).image!;
    // The manifest, the config (the image ID) and busybox:v1's two layers.
    expect(blobs.size).toBe(4);
    expect(blobs).toContain(pulled.repoDigests[0]!.split('@')[1]);
    expect(blobs).toContain(pulled.id);
    await cri.removeImage(image);
    await expect(imageBlobs(image)).rejects.toThrow(/HTTP 401/);
  });
});
