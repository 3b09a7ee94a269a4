import type { Credential } from '../auth/keyring.ts';

/** Bytes pulled so far for one image. */
export interface PullProgress {
  bytes: number;
  total: number;
  /** 0–100. */
  percent: number;
}

/** What a pull needs besides the image. */
export interface PullOptions {
  credential?: Credential;
  sandbox?: { labels?: Record<string, string>; annotations?: Record<string, string> };
  timeoutMs: number;
  signal: AbortSignal;
  onProgress?: (progress: PullProgress) => void;
}

/** The small interface the image puller needs from a runtime (CRI, or Docker Engine). */
export interface ImageService {
  /** Runtime name (`containerd`, `docker`, …). */
  readonly name: string;
  /** The image ID when `image` (name:tag or digest) is on the node, else undefined. */
  present(image: string): Promise<string | undefined>;
  /** Pulls `image`; resolves with the runtime's image reference. */
  pull(image: string, options: PullOptions): Promise<{ imageRef: string }>;
}
