import type { CriClient } from '@kruise/cri/client';
import type { Container } from 'kubernetes-types/core/v1.js';

/**
 * kubelet's image manager (EnsureImageExists): pulls the container's image as its
 * imagePullPolicy says (IfNotPresent by default). Errors carry kubelet's waiting reason
 * (`ErrImageNeverPull`, `ErrImagePull`) in `reason`.
 */
export async function ensureImage(cri: CriClient, container: Container): Promise<void> {
  const image = container.image ?? '';
  const policy = container.imagePullPolicy ?? 'IfNotPresent';
  if (policy !== 'Always' && (await cri.imageStatus(image)).image) return;
  if (policy === 'Never')
    throw Object.assign(new Error(`Container image "${image}" is not present with pull policy of Never`), {
      reason: 'ErrImageNeverPull',
    });
  try {
    await cri.pullImage(image, {}, { timeoutMs: 10 * 60_000 });
  } catch (err) {
    throw Object.assign(new Error((err as Error).message), { reason: 'ErrImagePull' });
  }
}
