import type { NodeImage } from '@kruise/api';
import { imageTagKey } from './job-image.ts';

/**
 * The `name:tag` pairs whose spec tag or status tag differ between two versions of a NodeImage:
 * only jobs on those tags need to look again (upstream PR #2483; v1.9 woke every job on the image).
 */
export function changedImageTags(oldNi: NodeImage | undefined, newNi: NodeImage | undefined): Set<string> {
  const changed = new Set<string>();
  const index = (ni: NodeImage | undefined) => {
    const m = new Map<string, string>();
    for (const [name, image] of Object.entries(ni?.spec?.images ?? {})) {
      const secrets = JSON.stringify(image.pullSecrets ?? []);
      for (const t of image.tags ?? []) m.set(imageTagKey(name, t.tag), `s${JSON.stringify(t)}${secrets}`);
    }
    for (const [name, image] of Object.entries(ni?.status?.imageStatuses ?? {})) {
      for (const t of image.tags ?? []) {
        const key = imageTagKey(name, t.tag);
        m.set(key, `${m.get(key) ?? ''}|${JSON.stringify(t)}`);
      }
    }
    return m;
  };
  const a = index(oldNi);
  const b = index(newNi);
  for (const [k, v] of a) if (b.get(k) !== v) changed.add(k);
  for (const k of b.keys()) if (!a.has(k)) changed.add(k);
  return changed;
}
