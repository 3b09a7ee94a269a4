import { fullyQualifiedImage, parseImageReference } from '@kruise/kube-compat';
import type Docker from 'dockerode';
import type { ImageService, PullOptions, PullProgress } from './image-service.ts';

/** One line of Docker's pull stream. */
interface PullEvent {
  id?: string;
  status?: string;
  error?: string;
  errorDetail?: { message?: string };
  progressDetail?: { current?: number; total?: number };
}

/**
 * Pulls through the Docker Engine API (dockerode): the pull stream reports per-layer bytes, so
 * progress is real on Docker nodes too. Errors carry the engine's own message.
 */
export class DockerImageService implements ImageService {
  readonly name = 'docker';
  private readonly docker: Docker;

  constructor(docker: Docker) {
    this.docker = docker;
  }

  async present(image: string): Promise<string | undefined> {
    try {
      const info = await this.docker.getImage(image).inspect();
      return info.Id;
    } catch (err) {
      if ((err as { statusCode?: number }).statusCode === 404) return undefined;
      throw err;
    }
  }

  async pull(image: string, options: PullOptions): Promise<{ imageRef: string }> {
    const ref = parseImageReference(image);
    const auth = options.credential
      ? {
          username: options.credential.username,
          password: options.credential.password,
          serveraddress: ref.domain,
        }
      : undefined;
    const stream = (await this.docker.pull(image, {
      ...(auth ? { authconfig: auth } : {}),
      abortSignal: options.signal,
    })) as NodeJS.ReadableStream;
    const layers = new Map<string, { current: number; total: number }>();
    let best = 0;
    const timer = setTimeout(
      () =>
        (stream as unknown as { destroy?: (e: Error) => void }).destroy?.(
          new Error(`context deadline exceeded: pull of ${image} took longer than ${options.timeoutMs} ms`),
        ),
      options.timeoutMs,
    );
    try {
      await new Promise<void>((resolve, reject) => {
        this.docker.modem.followProgress(
          stream,
          (err: Error | null) => (err ? reject(err) : resolve()),
          (event: PullEvent) => {
            if (event.error) {
              reject(new Error(event.errorDetail?.message ?? event.error));
              return;
            }
            if (event.id && event.progressDetail?.total) {
              layers.set(event.id, {
                current: event.progressDetail.current ?? 0,
                total: event.progressDetail.total,
              });
            } else if (
              event.id &&
              (event.status === 'Download complete' ||
                event.status === 'Pull complete' ||
                event.status === 'Already exists')
            ) {
              const l = layers.get(event.id);
              if (l) l.current = l.total;
            }
            if (!options.onProgress || layers.size === 0) return;
            let bytes = 0;
            let total = 0;
            for (const l of layers.values()) {
              bytes += l.current;
              total += l.total;
            }
            best = Math.max(best, Math.min(99, Math.floor((bytes / total) * 100)));
            const progress: PullProgress = { bytes, total, percent: best };
            options.onProgress(progress);
          },
        );
      });
    } finally {
      clearTimeout(timer);
    }
    const id = await this.present(fullyQualifiedImage(image).replace(/^docker\.io\/library\//, ''));
    if (!id) throw new Error(`image ${image} is not present after the pull`);
    return { imageRef: id };
  }
}
