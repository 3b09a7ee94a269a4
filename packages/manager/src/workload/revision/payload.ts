import { compareBytes, deepHashJsonBytes, goMarshal } from '@kruise/kube-compat';
import type { PersistentVolumeClaim } from 'kubernetes-types/core/v1.js';
import { encodeStruct } from './go-encode.ts';

/** Annotation holding the hash of a CloneSet's volumeClaimTemplates on each revision. */
export const VCT_HASH_ANNOTATION = 'kruise.io/cloneset-volumeclaimtemplate-hash';

/**
 * Kruise's hash of volumeClaimTemplates: name and spec of each template, sorted by name, as Go
 * marshals `[]PersistentVolumeClaim`, FNV-32a over its spew dump; '' when there are none.
 */
export function volumeClaimTemplatesHash(templates: PersistentVolumeClaim[] | undefined): string {
  if (!templates?.length) return '';
  const claims = templates
    .map((t) =>
      encodeStruct(
        { metadata: { name: t.metadata?.name }, spec: t.spec } as Record<string, unknown>,
        'PersistentVolumeClaim',
      ),
    )
    .sort((a, b) =>
      compareBytes(String((a.metadata as any).name ?? ''), String((b.metadata as any).name ?? '')),
    );
  return String(deepHashJsonBytes(goMarshal(claims)));
}
