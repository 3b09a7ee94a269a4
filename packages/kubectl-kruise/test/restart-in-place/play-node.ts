import { KruiseResources } from '@kruise/api';
import type { KubeClient, KubeObject } from '@kruise/runtime';
import { podsOf, runPod } from '../../../manager/test/cloneset/harness.ts';

/** A node played by a test until stopped; `completed` names the pods whose requests it completed. */
export interface PlayedNode {
  completed: string[];
  stop(): Promise<void>;
}

/**
 * Plays kubelet (every pod labelled `app=<app>` that is not Ready is run and made Ready) and
 * kruise-daemon (each ContainerRecreateRequest of the namespace `default` is completed with every
 * container Succeeded, once `daemonReady` holds) until stopped.
 */
export function playNode(
  client: KubeClient,
  app: string,
  daemonReady: () => Promise<boolean> = async () => true,
): PlayedNode {
  let playing = true;
  const completed: string[] = [];
  const loop = (async () => {
    while (playing) {
      for (const p of await podsOf(client, app)) {
        const ready = p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True');
        if (!ready) await runPod(client, p).catch(() => undefined);
      }
      const crrs = (await daemonReady())
        ? (await client.list(KruiseResources.ContainerRecreateRequest, { namespace: 'default' })).items
        : [];
      for (const c of crrs as KubeObject[]) {
        if (c.status?.phase === 'Completed') continue;
        await client
          .mergePatchStatus(KruiseResources.ContainerRecreateRequest, 'default', c.metadata!.name, {
            status: {
              phase: 'Completed',
              completionTime: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
              containerRecreateStates: c.spec.containers.map((x: { name: string }) => ({
                name: x.name,
                phase: 'Succeeded',
                isKilled: true,
              })),
            },
          })
          .then(() => completed.push(c.spec.podName))
          .catch(() => undefined);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  return {
    completed,
    stop: async () => {
      playing = false;
      await loop;
    },
  };
}
