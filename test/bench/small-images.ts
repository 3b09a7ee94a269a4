import { execFileSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';

const sha256 = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');

/**
 * Pushes `count` small single-layer images `<registry>/small-<i>:v1` (each layer its own
 * `layerKiB` of random bytes, so every pull really downloads and unpacks a distinct layer), built
 * by hand as OCI layouts (tar + gzip + JSON, as cri-stack.sh builds its images) and copied with
 * skopeo over plain HTTP. Returns the image references.
 */
export function pushSmallImages(registry: string, workDir: string, count: number, layerKiB = 256): string[] {
  const refs: string[] = [];
  for (let i = 0; i < count; i++) {
    const root = join(workDir, `small-${i}`);
    const rootfs = join(root, 'rootfs');
    mkdirSync(join(rootfs, 'data'), { recursive: true });
    writeFileSync(join(rootfs, 'data', `small-${i}.bin`), randomBytes(layerKiB * 1024));
    const tar = execFileSync(
      'tar',
      [
        '--sort=name',
        '--mtime=@0',
        '--owner=0',
        '--group=0',
        '--numeric-owner',
        '-C',
        rootfs,
        '-cf',
        '-',
        '.',
      ],
      { maxBuffer: 64 * 1024 * 1024 },
    );
    const layer = gzipSync(tar, { level: 1 });
    const config = JSON.stringify({
      architecture: 'amd64',
      os: 'linux',
      config: { Cmd: ['/bin/sh'], WorkingDir: '/' },
      rootfs: { type: 'layers', diff_ids: [`sha256:${sha256(tar)}`] },
    });
    const manifest = JSON.stringify({
      schemaVersion: 2,
      mediaType: 'application/vnd.oci.image.manifest.v1+json',
      config: {
        mediaType: 'application/vnd.oci.image.config.v1+json',
        digest: `sha256:${sha256(config)}`,
        size: Buffer.byteLength(config),
      },
      layers: [
        {
          mediaType: 'application/vnd.oci.image.layer.v1.tar+gzip',
          digest: `sha256:${sha256(layer)}`,
          size: layer.length,
        },
      ],
    });
    const layout = join(root, 'oci');
    mkdirSync(join(layout, 'blobs/sha256'), { recursive: true });
    for (const blob of [layer, config, manifest])
      writeFileSync(join(layout, 'blobs/sha256', sha256(blob)), blob);
    writeFileSync(join(layout, 'oci-layout'), '{"imageLayoutVersion":"1.0.0"}');
    writeFileSync(
      join(layout, 'index.json'),
      JSON.stringify({
        schemaVersion: 2,
        manifests: [
          {
            mediaType: 'application/vnd.oci.image.manifest.v1+json',
            digest: `sha256:${sha256(manifest)}`,
            size: Buffer.byteLength(manifest),
            annotations: { 'org.opencontainers.image.ref.name': 'latest' },
          },
        ],
      }),
    );
    const ref = `${registry}/small-${i}:v1`;
    execFileSync('skopeo', [
      'copy',
      '--quiet',
      '--dest-tls-verify=false',
      `oci:${layout}:latest`,
      `docker://${ref}`,
    ]);
    rmSync(root, { recursive: true, force: true });
    refs.push(ref);
  }
  return refs;
}
