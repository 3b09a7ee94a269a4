import { execFileSync } from 'node:child_process';

/**
 * Copies `<registry>/busybox:v1` to each of `tags` in the same registry: one digest under several
 * names, so that moving a container between them changes its spec but pulls nothing.
 */
export function tagSameDigest(registry: string, tags: string[]): void {
  for (const tag of tags)
    execFileSync('skopeo', [
      'copy',
      '--quiet',
      '--src-tls-verify=false',
      '--dest-tls-verify=false',
      `docker://${registry}/busybox:v1`,
      `docker://${registry}/busybox:${tag}`,
    ]);
}
