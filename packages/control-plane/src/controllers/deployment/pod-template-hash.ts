import { fnv1a_32, safeEncodeString } from '@kruise/kube-compat/go-hash';
import { goMarshal } from '@kruise/kube-compat/go-json';
import { jsonDeepEqual } from '@kruise/kube-compat/json-equal';

/** The label a Deployment adds to its ReplicaSets' selector, template and pods. */
export const POD_TEMPLATE_HASH = 'pod-template-hash';

/**
 * The pod-template-hash of a Deployment's template, as kube-controller-manager's ComputeHash
 * builds it: FNV-32a of the template (here its canonical JSON: keys sorted), then of
 * `collisionCount` as 8 little-endian bytes when set, printed in decimal and safe-encoded
 * (consonants and digits only, so that it never spells a word).
 */
export function podTemplateHash(template: unknown, collisionCount?: number): string {
  const json = Buffer.from(goMarshal(template ?? {}, true), 'utf8');
  let bytes: Uint8Array = json;
  if (collisionCount !== undefined && collisionCount !== null) {
    const extra = Buffer.alloc(8);
    extra.writeUInt32LE(collisionCount >>> 0, 0);
    bytes = Buffer.concat([json, extra]);
  }
  return safeEncodeString(String(fnv1a_32(bytes)));
}

/** The template without its pod-template-hash label (and without a labels map left empty by that). */
function withoutHash(template: any): unknown {
  if (!template || typeof template !== 'object') return template;
  const labels = { ...(template.metadata?.labels ?? {}) };
  delete labels[POD_TEMPLATE_HASH];
  const metadata = { ...(template.metadata ?? {}) };
  if (Object.keys(labels).length) metadata.labels = labels;
  else delete metadata.labels;
  const out = { ...template };
  if (Object.keys(metadata).length) out.metadata = metadata;
  else delete out.metadata;
  return out;
}

/** kube-controller-manager's EqualIgnoreHash: whether two pod templates differ only in pod-template-hash. */
export function templatesEqualIgnoringHash(a: unknown, b: unknown): boolean {
  return jsonDeepEqual(withoutHash(a), withoutHash(b));
}
