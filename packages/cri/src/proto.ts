import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type GrpcObject, loadPackageDefinition, type ServiceClientConstructor } from '@grpc/grpc-js';
import { loadSync } from '@grpc/proto-loader';

/** Where proto/ is: `KRUISE_PROTO_DIR`, else the repository's top-level proto/ (also its place in the image). */
export function protoDir(): string {
  if (process.env.KRUISE_PROTO_DIR) return process.env.KRUISE_PROTO_DIR;
  const here = dirname(fileURLToPath(import.meta.url));
  for (const candidate of [join(here, '../../../proto'), join(here, '../proto')]) {
    if (existsSync(join(candidate, 'cri/api.proto'))) return candidate;
  }
  throw new Error(`proto/ not found next to ${here}; set KRUISE_PROTO_DIR`);
}

/** Loader options: int64/uint64 as strings (nanosecond timestamps exceed 2^53), enums as names, defaults filled. */
const OPTIONS = { keepCase: false, longs: String, enums: String, defaults: true, oneofs: true } as const;

let services:
  | { runtime: ServiceClientConstructor; image: ServiceClientConstructor; content: ServiceClientConstructor }
  | undefined;

/** The gRPC service constructors of CRI runtime.v1 and containerd's content service (loaded once). */
export function criServices() {
  if (!services) {
    const dir = protoDir();
    const definition = loadSync(['cri/api.proto', 'containerd/content.proto'], {
      ...OPTIONS,
      includeDirs: [dir],
    });
    const root = loadPackageDefinition(definition) as GrpcObject & Record<string, any>;
    services = {
      runtime: root.runtime.v1.RuntimeService as ServiceClientConstructor,
      image: root.runtime.v1.ImageService as ServiceClientConstructor,
      content: root.containerd.services.content.v1.Content as ServiceClientConstructor,
    };
  }
  return services;
}
