import { parseImageReference } from '@kruise/kube-compat';

/** Whether an image names a digest (`busybox@sha256:…`; upstream's IsImageDigest). */
export function isDigestImage(image: string): boolean {
  try {
    return parseImageReference(image).digest !== undefined;
  } catch {
    return false;
  }
}

/** Upstream's IsContainerImageEqual: same repository and digest, or same repository and tag. */
export function sameImage(a: string, b: string): boolean {
  try {
    const ra = parseImageReference(a);
    const rb = parseImageReference(b);
    if (ra.digest !== undefined && rb.digest !== undefined)
      return ra.name === rb.name && ra.digest === rb.digest;
    return ra.name === rb.name && ra.tag === rb.tag;
  } catch {
    return false;
  }
}
