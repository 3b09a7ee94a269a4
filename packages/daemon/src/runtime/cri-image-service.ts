import { PULLING_IMAGE_BY_ANNOTATION, PULLING_IMAGE_BY_DAEMON } from '@kruise/api';
import type { CriClient } from '@kruise/cri/client';
import { fullyQualifiedImage } from '@kruise/kube-compat';
import { ContentProgressTracker } from './content-progress.ts';
import { imageBlobs } from './image-blobs.ts';
import type { ImageService, PullOptions } from './image-service.ts';

/**
 * Pulls through CRI ImageService; on containerd, with live byte progress from the content service
 * (polled every `progressIntervalMs` while pulls run; the daemon ties it to its status interval).
 */
export class CriImageService implements ImageService {
  readonly name: string;
  private readonly cri: CriClient;
  private readonly progress: ContentProgressTracker | undefined;

  constructor(cri: CriClient, runtimeName: string, progressIntervalMs: number) {
    this.cri = cri;
    this.name = runtimeName;
    this.progress =
      runtimeName === 'containerd' ? new ContentProgressTracker(cri, progressIntervalMs) : undefined;
  }

  async present(image: string): Promise<string | undefined> {
    const wanted = fullyQualifiedImage(image);
    const { images } = await this.cri.listImages();
    return images.find(
      (i) =>
        i.repoTags.some((t) => safeQualify(t) === wanted) ||
        i.repoDigests.some((d) => safeQualify(d) === wanted),
    )?.id;
  }

  async pull(image: string, options: PullOptions): Promise<{ imageRef: string }> {
    let untrack: (() => void) | undefined;
    if (options.onProgress && this.progress) {
      // The pull's blobs are read from the registry beside the pull (never delaying it); until
      // they are known, no ingest counts for it.
      let blobs: ReadonlySet<string> | undefined;
      imageBlobs(image, { credential: options.credential, signal: options.signal }).then(
        (b) => (blobs = b),
        () => undefined,
      );
      untrack = this.progress.track(() => blobs, options.onProgress);
    }
    try {
      const auth = options.credential
        ? { username: options.credential.username, password: options.credential.password }
        : undefined;
      const sandboxConfig = {
        metadata: {
          name: 'kruise-daemon-pull',
          namespace: 'kruise-daemon',
          uid: 'kruise-daemon-pull',
          attempt: 0,
        },
        labels: options.sandbox?.labels ?? {},
        annotations: {
          ...(options.sandbox?.annotations ?? {}),
          [PULLING_IMAGE_BY_ANNOTATION]: PULLING_IMAGE_BY_DAEMON,
        },
      };
      const { imageRef } = await this.cri.pullImage(
        image,
        { ...(auth ? { auth } : {}), sandboxConfig },
        { timeoutMs: options.timeoutMs, signal: options.signal },
      );
      return { imageRef };
    } finally {
      untrack?.();
    }
  }
}

function safeQualify(ref: string): string {
  try {
    return fullyQualifiedImage(ref);
  } catch {
    return ref;
  }
}
