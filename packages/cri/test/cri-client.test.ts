import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { CriClient } from '../src/client.ts';
import { CriError, isCriNotFound } from '../src/errors.ts';

let cri: CriClient;
const registry = inject('registry');

beforeAll(() => {
  cri = new CriClient(inject('criSocket'));
});
afterAll(() => cri.close());

describe('CriClient against containerd', () => {
  it('reads the runtime version and image filesystem', async () => {
    const v = await cri.version();
    expect(v).toMatchObject({ runtimeName: 'containerd', runtimeApiVersion: 'v1' });
    const fs = await cri.imageFsInfo();
    expect(fs.imageFilesystems[0]?.fsId?.mountpoint).toContain('/containerd/root/');
  });

  it('pulls an image that ImageStatus and ListImages then report, and removes it', async () => {
    const image = `${registry}/busybox:v1`;
    const { imageRef } = await cri.pullImage(image);
    expect(imageRef).toMatch(/^sha256:[0-9a-f]{64}$/);
    const status = await cri.imageStatus(image);
    expect(status.image?.id).toBe(imageRef);
    expect(status.image?.repoTags).toContain(image);
    expect(typeof status.image?.size).toBe('string');
    const listed = await cri.listImages();
    expect(listed.images.some((i) => i.id === imageRef)).toBe(true);
    await cri.removeImage(image);
    expect((await cri.imageStatus(image)).image).toBeNull();
    await cri.removeImage(image);
  });

  it('reports byte progress of a running pull through containerd content statuses', async () => {
    const image = `${registry}/big:v1`;
    await cri.removeImage(image);
    const seen: { offset: number; total: number }[] = [];
    const poll = setInterval(async () => {
      const { statuses } = await cri.contentStatuses().catch(() => ({ statuses: [] }));
      for (const s of statuses) seen.push({ offset: Number(s.offset), total: Number(s.total) });
    }, 20);
    await cri.pullImage(image, {}, { timeoutMs: 60_000 });
    clearInterval(poll);
    const big = seen.filter((s) => s.total > 50 * 1024 * 1024);
    expect(big.some((s) => s.offset > 0 && s.offset < s.total)).toBe(true);
    await cri.removeImage(image);
  });

  it('fails a missing image with NOT_FOUND and the runtime message', async () => {
    const err = await cri.pullImage(`${registry}/missing:v1`).catch((e) => e);
    expect(err).toBeInstanceOf(CriError);
    expect(isCriNotFound(err)).toBe(true);
    expect(err.message).toMatch(/^rpc error: code = NOT_FOUND desc = failed to pull and unpack image/);
  });

  it('gives up at the deadline and on abort', async () => {
    await cri.removeImage(`${registry}/big:v1`);
    const late = await cri.pullImage(`${registry}/big:v1`, {}, { timeoutMs: 5 }).catch((e) => e);
    // the client's deadline, or containerd's own context hitting it first (it then answers UNKNOWN,
    // naming the deadline): either way the pull gave up at the deadline
    if (late.codeName !== 'DEADLINE_EXCEEDED') {
      expect(late.codeName).toBe('UNKNOWN');
      expect(late.message).toMatch(/deadline exceeded/i);
    }
    const controller = new AbortController();
    const pending = cri
      .pullImage(`${registry}/big:v1`, {}, { timeoutMs: 60_000, signal: controller.signal })
      .catch((e) => e);
    setTimeout(() => controller.abort(), 5);
    expect((await pending).codeName).toBe('CANCELLED');
  });
});
