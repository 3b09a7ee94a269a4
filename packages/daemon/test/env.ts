import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ControlPlane } from '@kruise/control-plane';
import { CriClient } from '@kruise/cri/client';
import { KubeClient } from '@kruise/runtime';
import { inject } from 'vitest';
import { parse } from 'yaml';

/** The repository root. */
export const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '../../..');

/** A control plane with the Kruise CRDs, an admin client, and a CRI client to the test containerd. */
export async function startDaemonTestEnv(): Promise<{
  cp: ControlPlane;
  client: KubeClient;
  cri: CriClient;
  stop: () => Promise<void>;
}> {
  const cp = await ControlPlane.start();
  const client = KubeClient.fromString(cp.kubeconfig());
  for (const file of readdirSync(join(repoRoot, 'deploy/crds'))) {
    await client.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {
      body: parse(readFileSync(join(repoRoot, 'deploy/crds', file), 'utf8')),
    });
  }
  const cri = new CriClient(inject('criSocket'));
  return {
    cp,
    client,
    cri,
    stop: async () => {
      cri.close();
      await cp.stop();
    },
  };
}

export { until } from '../../../test/support/poll.ts';

/** RFC 3339 now, second precision. */
