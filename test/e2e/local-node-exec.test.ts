import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type KubeClient, Resources } from '@kruise/runtime';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { kubectl as runKubectl } from '../support/kubectl.ts';
import { useLocalNode } from '../support/local-node-env.ts';
import { eventually } from '../support/poll.ts';

const registry = inject('registry');
const env = useLocalNode('ln-exec');
let client: KubeClient;
let kubeconfig: string;
beforeAll(async () => {
  client = env.client;
  kubeconfig = join(env.podLogsDir, 'kubeconfig');
  writeFileSync(kubeconfig, env.cp.kubeconfig());
  await client.create(Resources.Pod, {
    metadata: { name: 'shell', namespace: 'default' },
    spec: {
      nodeName: 'ln-exec',
      terminationGracePeriodSeconds: 2,
      containers: ['app', 'side'].map((name) => ({
        name,
        image: `${registry}/busybox:v1`,
        command: ['sh', '-c', "trap 'exit 0' TERM; while true; do sleep 0.2; done"],
      })),
    },
  });
  await eventually(
    async () =>
      (await client.get(Resources.Pod, 'default', 'shell')).status?.containerStatuses?.every(
        (s: any) => s.state?.running,
      ),
    30_000,
    100,
  );
});

/** Runs kubectl without blocking (the control plane answers from this process). */
const kubectl = (args: string[], input?: string) => runKubectl(kubeconfig, args, input);

describe('kubectl exec', () => {
  it('runs a command in the container and prints its output, stderr apart, with its exit code', async () => {
    const r = await kubectl([
      'exec',
      'shell',
      '-c',
      'app',
      '--',
      'sh',
      '-c',
      'cat /etc/image-version; echo oops >&2; exit 3',
    ]);
    expect(r.stdout).toBe('v1\n');
    expect(r.stderr).toContain('oops\n');
    expect(r.status).toBe(3);
  });

  it('passes stdin through (-i)', async () => {
    const r = await kubectl(
      ['exec', '-i', 'shell', '-c', 'side', '--', 'sh', '-c', 'tr a-z A-Z'],
      'hello there\n',
    );
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe('HELLO THERE\n');
    expect(r.status).toBe(0);
  });

  it('answers a wrong container as kube-apiserver', async () => {
    const r = await kubectl(['exec', 'shell', '-c', 'nope', '--', 'true']);
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain('container nope is not valid for pod shell');
  });
});
