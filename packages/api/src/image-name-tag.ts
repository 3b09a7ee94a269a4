import { DEFAULT_TAG, isDigest, parseImageReference } from '@kruise/kube-compat';

/**
 * Splits an image into the NodeImage key and tag: the familiar name, and the digest
 * if there is one, else the tag, else `latest`. This is how ImagePullJobs address NodeImages.
 * @throws InvalidImageReferenceError when the image does not parse.
 */
export function normalizeImageToNameTag(image: string): { name: string; tag: string } {
  const ref = parseImageReference(image);
  return { name: ref.familiarName, tag: ref.digest ?? ref.tag ?? DEFAULT_TAG };
}

/** Joins a NodeImage key and tag back into a pullable reference (`name:tag` or `name@sha256:…`). */
export function joinImageNameTag(name: string, tag: string): string {
  return isDigest(tag) ? `${name}@${tag}` : `${name}:${tag}`;
}
