import { deepHashJsonBytes } from './go-hash.ts';
import { goMarshal } from './go-json.ts';

/**
 * kubelet's container hash as Kubernetes ≥ 1.31 computes it (`pkg/kubelet/container/helpers.go`
 * `HashContainer`): FNV-32a over go-spew's dump of the JSON of `{"image":…,"name":…}` (a Go map, so
 * keys sorted). Only the name and the image count, so an in-place image update is the one spec
 * change that gives a running container a new hash. The manager's in-place completion check and
 * the node's `io.kubernetes.container.hash` annotation (read back by kruise-daemon) both use it.
 */
export function kubeletContainerHash(container: { name: string; image?: string | undefined }): number {
  return deepHashJsonBytes(goMarshal({ name: container.name, image: container.image ?? '' }, true));
}

/** The hash as kubelet writes it into `io.kubernetes.container.hash` (`strconv.FormatUint(h, 16)`). */
export function formatKubeletContainerHash(hash: number): string {
  return hash.toString(16);
}

/** The hash read back from `io.kubernetes.container.hash` (0 when missing or not hexadecimal, as kubelet's parse). */
export function parseKubeletContainerHash(annotation: string | undefined): number {
  if (!annotation || !/^[0-9a-fA-F]{1,16}$/.test(annotation)) return 0;
  const n = Number.parseInt(annotation, 16);
  return Number.isSafeInteger(n) ? n : 0;
}
