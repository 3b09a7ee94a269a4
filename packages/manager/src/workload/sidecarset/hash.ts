import { createHash } from 'node:crypto';
import type { SidecarContainer, SidecarSet } from '@kruise/api';
import { goMarshal, safeEncodeString } from '@kruise/kube-compat';
import { encodeStruct } from '../revision/go-encode.ts';
import { isNativeSidecar } from './native.ts';

const encodeAll = (containers: SidecarContainer[]) =>
  containers.map((c) => encodeStruct(c as unknown as Record<string, unknown>, 'SidecarContainer'));

/**
 * The bytes upstream hashes: `{"containers":[…]}` with each container in Go's field order, plus
 * `"initContainers"` (every init container, as upstream writes it) when any of them is a native sidecar.
 */
function encodeSidecars(containers: SidecarContainer[], initContainers: SidecarContainer[]): string {
  const m: Record<string, unknown> = { containers: containers.length ? encodeAll(containers) : null };
  if (initContainers.some(isNativeSidecar)) m.initContainers = encodeAll(initContainers);
  return goMarshal(m);
}

const hashOf = (data: string) => safeEncodeString(createHash('sha256').update(data).digest('hex'));

/**
 * The SidecarSet's hash (annotation `kruise.io/sidecarset-hash`): SHA-256 over its containers (and
 * native-sidecar init containers), safe-encoded, byte for byte upstream's so pods injected by
 * upstream count as up to date here.
 */
export function sidecarSetHash(sidecarSet: SidecarSet): string {
  return hashOf(encodeSidecars(sidecarSet.spec?.containers ?? [], sidecarSet.spec?.initContainers ?? []));
}

/** The hash with every image left out (`kruise.io/sidecarset-hash-without-image`): equal when only images changed. */
export function sidecarSetHashWithoutImage(sidecarSet: SidecarSet): string {
  const blank = (cs: SidecarContainer[] | undefined) => (cs ?? []).map((c) => ({ ...c, image: '' }));
  return hashOf(encodeSidecars(blank(sidecarSet.spec?.containers), blank(sidecarSet.spec?.initContainers)));
}
