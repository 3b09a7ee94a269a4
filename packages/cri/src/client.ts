import { type Client, credentials, Metadata, type ServiceError } from '@grpc/grpc-js';
import { CriError } from './errors.ts';
import type { ListStatusesResponse__Output } from './generated/containerd/services/content/v1/ListStatusesResponse.ts';
import type { AuthConfig } from './generated/runtime/v1/AuthConfig.ts';
import type { ContainerConfig } from './generated/runtime/v1/ContainerConfig.ts';
import type { ContainerFilter } from './generated/runtime/v1/ContainerFilter.ts';
import type { ContainerStatusResponse__Output } from './generated/runtime/v1/ContainerStatusResponse.ts';
import type { ExecRequest } from './generated/runtime/v1/ExecRequest.ts';
import type { ExecSyncResponse__Output } from './generated/runtime/v1/ExecSyncResponse.ts';
import type { ImageFsInfoResponse__Output } from './generated/runtime/v1/ImageFsInfoResponse.ts';
import type { ImageStatusResponse__Output } from './generated/runtime/v1/ImageStatusResponse.ts';
import type { LinuxContainerResources } from './generated/runtime/v1/LinuxContainerResources.ts';
import type { ListContainersResponse__Output } from './generated/runtime/v1/ListContainersResponse.ts';
import type { ListImagesResponse__Output } from './generated/runtime/v1/ListImagesResponse.ts';
import type { ListPodSandboxResponse__Output } from './generated/runtime/v1/ListPodSandboxResponse.ts';
import type { PodSandboxConfig } from './generated/runtime/v1/PodSandboxConfig.ts';
import type { PodSandboxFilter } from './generated/runtime/v1/PodSandboxFilter.ts';
import type { PodSandboxStatusResponse__Output } from './generated/runtime/v1/PodSandboxStatusResponse.ts';
import type { PullImageResponse__Output } from './generated/runtime/v1/PullImageResponse.ts';
import type { StatusResponse__Output } from './generated/runtime/v1/StatusResponse.ts';
import type { VersionResponse__Output } from './generated/runtime/v1/VersionResponse.ts';
import { criServices } from './proto.ts';

/** Largest message accepted from the runtime (16 MiB, as upstream). */
export const MAX_RECEIVE_BYTES = 16 * 1024 * 1024;
/** The containerd namespace CRI keeps its images and containers in. */
export const CONTAINERD_CRI_NAMESPACE = 'k8s.io';

/** Options of one call: a deadline (always) and an abort signal. */
export interface CallOptions {
  timeoutMs?: number;
  signal?: AbortSignal;
}

type Unary = (
  request: unknown,
  metadata: Metadata,
  options: { deadline: Date },
  callback: (err: ServiceError | null, res: any) => void,
) => { cancel(): void };

/**
 * A CRI runtime.v1 client over a unix socket: every call has a deadline, messages up to 16 MiB,
 * no keepalive pings; failures become `CriError`s carrying the gRPC code and the runtime's message.
 * It also reads containerd's content service (in-progress ingests) for pull progress.
 */
export class CriClient {
  readonly endpoint: string;
  private readonly runtime: Client;
  private readonly image: Client;
  private readonly content: Client;
  private readonly defaultTimeoutMs: number;

  constructor(endpoint: string, options: { defaultTimeoutMs?: number } = {}) {
    this.endpoint = endpoint.startsWith('unix://') ? endpoint : `unix://${endpoint}`;
    this.defaultTimeoutMs = options.defaultTimeoutMs ?? 10_000;
    const channelOptions = {
      'grpc.max_receive_message_length': MAX_RECEIVE_BYTES,
      'grpc.keepalive_permit_without_calls': 0,
      'grpc.enable_retries': 0,
    };
    const { runtime, image, content } = criServices();
    const creds = credentials.createInsecure();
    this.runtime = new runtime(this.endpoint, creds, channelOptions);
    this.image = new image(this.endpoint, creds, channelOptions);
    this.content = new content(this.endpoint, creds, channelOptions);
  }

  private call<T>(
    client: Client,
    method: string,
    request: unknown,
    options: CallOptions = {},
    metadata = new Metadata(),
  ): Promise<T> {
    return new Promise((resolve, reject) => {
      const fn = (client as unknown as Record<string, Unary>)[method]!.bind(client);
      const deadline = new Date(Date.now() + (options.timeoutMs ?? this.defaultTimeoutMs));
      const call = fn(request, metadata, { deadline }, (err, res) => {
        options.signal?.removeEventListener('abort', onAbort);
        if (err) reject(new CriError(method, err));
        else resolve(res as T);
      });
      const onAbort = () => call.cancel();
      if (options.signal?.aborted) call.cancel();
      else options.signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** Runtime name and versions. */
  version(options?: CallOptions): Promise<VersionResponse__Output> {
    return this.call(this.runtime, 'Version', { version: 'v1' }, options);
  }

  /** Runtime conditions (RuntimeReady, NetworkReady). */
  status(options?: CallOptions): Promise<StatusResponse__Output> {
    return this.call(this.runtime, 'Status', {}, options);
  }

  /** Filesystems holding images. */
  imageFsInfo(options?: CallOptions): Promise<ImageFsInfoResponse__Output> {
    return this.call(this.image, 'ImageFsInfo', {}, options);
  }

  /** Images on the node (optionally one image). */
  listImages(image?: string, options?: CallOptions): Promise<ListImagesResponse__Output> {
    return this.call(this.image, 'ListImages', image ? { filter: { image: { image } } } : {}, options);
  }

  /** One image's status (`image` is null when absent). */
  imageStatus(image: string, options?: CallOptions): Promise<ImageStatusResponse__Output> {
    return this.call(this.image, 'ImageStatus', { image: { image } }, options);
  }

  /** Pulls an image; resolves with the image reference (`sha256:…`). */
  pullImage(
    image: string,
    extra: { auth?: AuthConfig; sandboxConfig?: PodSandboxConfig } = {},
    options?: CallOptions,
  ): Promise<PullImageResponse__Output> {
    return this.call(
      this.image,
      'PullImage',
      {
        image: { image },
        ...(extra.auth ? { auth: extra.auth } : {}),
        ...(extra.sandboxConfig ? { sandboxConfig: extra.sandboxConfig } : {}),
      },
      options,
    );
  }

  /** Removes an image (succeeds when absent). */
  async removeImage(image: string, options?: CallOptions): Promise<void> {
    await this.call(this.image, 'RemoveImage', { image: { image } }, options);
  }

  /** Pod sandboxes. */
  listPodSandbox(filter?: PodSandboxFilter, options?: CallOptions): Promise<ListPodSandboxResponse__Output> {
    return this.call(this.runtime, 'ListPodSandbox', filter ? { filter } : {}, options);
  }

  /** Containers. */
  listContainers(filter?: ContainerFilter, options?: CallOptions): Promise<ListContainersResponse__Output> {
    return this.call(this.runtime, 'ListContainers', filter ? { filter } : {}, options);
  }

  /**
   * Prepares a streaming exec in a container; resolves with the runtime's streaming URL, which
   * serves it once (SPDY or WebSocket, as kubelet's streaming server does).
   */
  async exec(request: ExecRequest, options?: CallOptions): Promise<string> {
    const res = await this.call<{ url: string }>(this.runtime, 'Exec', request, options);
    return res.url;
  }

  /** Changes a running container's cgroup limits in place (in-place resize). */
  async updateContainerResources(
    containerId: string,
    linux: LinuxContainerResources,
    options?: CallOptions,
  ): Promise<void> {
    await this.call(this.runtime, 'UpdateContainerResources', { containerId, linux }, options);
  }

  /** One container's status. */
  containerStatus(containerId: string, options?: CallOptions): Promise<ContainerStatusResponse__Output> {
    return this.call(this.runtime, 'ContainerStatus', { containerId }, options);
  }

  /** Starts a pod sandbox; resolves with its ID. */
  async runPodSandbox(config: PodSandboxConfig, options?: CallOptions): Promise<string> {
    const res = await this.call<{ podSandboxId: string }>(
      this.runtime,
      'RunPodSandbox',
      { config },
      { timeoutMs: 60_000, ...options },
    );
    return res.podSandboxId;
  }

  /** A pod sandbox's status: its state and, outside the host network, the pod's IPs. */
  podSandboxStatus(podSandboxId: string, options?: CallOptions): Promise<PodSandboxStatusResponse__Output> {
    return this.call(this.runtime, 'PodSandboxStatus', { podSandboxId }, options);
  }

  /** Stops a pod sandbox (its containers are killed). */
  async stopPodSandbox(podSandboxId: string, options?: CallOptions): Promise<void> {
    await this.call(this.runtime, 'StopPodSandbox', { podSandboxId }, { timeoutMs: 60_000, ...options });
  }

  /** Removes a stopped pod sandbox and its containers. */
  async removePodSandbox(podSandboxId: string, options?: CallOptions): Promise<void> {
    await this.call(this.runtime, 'RemovePodSandbox', { podSandboxId }, { timeoutMs: 60_000, ...options });
  }

  /** Creates a container in a sandbox; resolves with its ID. */
  async createContainer(
    podSandboxId: string,
    config: ContainerConfig,
    sandboxConfig: PodSandboxConfig,
    options?: CallOptions,
  ): Promise<string> {
    const res = await this.call<{ containerId: string }>(
      this.runtime,
      'CreateContainer',
      { podSandboxId, config, sandboxConfig },
      { timeoutMs: 60_000, ...options },
    );
    return res.containerId;
  }

  /** Starts a created container. */
  async startContainer(containerId: string, options?: CallOptions): Promise<void> {
    await this.call(this.runtime, 'StartContainer', { containerId }, { timeoutMs: 60_000, ...options });
  }

  /** Removes a container (stopping it first if it runs). */
  async removeContainer(containerId: string, options?: CallOptions): Promise<void> {
    await this.call(this.runtime, 'RemoveContainer', { containerId }, { timeoutMs: 60_000, ...options });
  }

  /** Stops a container, killing it after `timeoutSeconds`; the call's deadline covers that grace. */
  async stopContainer(containerId: string, timeoutSeconds: number, options: CallOptions = {}): Promise<void> {
    await this.call(
      this.runtime,
      'StopContainer',
      { containerId, timeout: String(timeoutSeconds) },
      { timeoutMs: (timeoutSeconds + 10) * 1000, ...options },
    );
  }

  /** Runs a command in a container and waits for it (at most `timeoutSeconds`). */
  execSync(
    containerId: string,
    cmd: string[],
    timeoutSeconds: number,
    options: CallOptions = {},
  ): Promise<ExecSyncResponse__Output> {
    return this.call(
      this.runtime,
      'ExecSync',
      { containerId, cmd, timeout: String(timeoutSeconds) },
      { timeoutMs: (timeoutSeconds + 5) * 1000, ...options },
    );
  }

  /** containerd only: ingests in progress (what a running pull has downloaded so far). */
  contentStatuses(options?: CallOptions): Promise<ListStatusesResponse__Output> {
    const metadata = new Metadata();
    metadata.set('containerd-namespace', CONTAINERD_CRI_NAMESPACE);
    return this.call(this.content, 'ListStatuses', {}, options, metadata);
  }

  /** Closes the channels. */
  close(): void {
    this.runtime.close();
    this.image.close();
    this.content.close();
  }
}
