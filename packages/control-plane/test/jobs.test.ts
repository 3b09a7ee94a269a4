import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ControlPlane } from '../src/index.ts';
import { rawRequest, startControlPlane } from './helpers.ts';
import { type KubectlResult, kubectlFor } from './kubectl-run.ts';

let cp: ControlPlane;
let kubectl: (args: string[], input?: string) => Promise<KubectlResult>;
let dispose: () => void;

beforeAll(async () => {
  // The API server's part alone: no Job controller writes these Jobs' status (job-controller.test.ts runs one).
  cp = await startControlPlane({ jobs: false });
  ({ kubectl, dispose } = kubectlFor(cp));
});
afterAll(async () => {
  dispose?.();
  await cp?.stop();
});

const job = (name: string, extra = '') =>
  `apiVersion: batch/v1\nkind: Job\nmetadata: {name: ${name}}\nspec:\n${extra}  template:\n    spec:\n      restartPolicy: Never\n      containers:\n      - {name: main, image: "busybox:1.36"}\n`;

describe('batch/v1 Job', () => {
  it('is stored with kube-apiserver defaults and the generated selector on its uid', async () => {
    expect((await kubectl(['apply', '-f', '-'], job('once'))).code).toBe(0);
    const got = await rawRequest(cp, 'GET', '/apis/batch/v1/namespaces/default/jobs/once');
    const { metadata, spec, status } = got.body;
    expect(spec).toMatchObject({
      parallelism: 1,
      completions: 1,
      backoffLimit: 6,
      completionMode: 'NonIndexed',
      suspend: false,
      podReplacementPolicy: 'TerminatingOrFailed',
      selector: { matchLabels: { 'batch.kubernetes.io/controller-uid': metadata.uid } },
    });
    expect(spec.template.metadata.labels).toEqual({
      'job-name': 'once',
      'batch.kubernetes.io/job-name': 'once',
      'controller-uid': metadata.uid,
      'batch.kubernetes.io/controller-uid': metadata.uid,
    });
    expect(spec.template.spec.terminationGracePeriodSeconds).toBe(30);
    expect(status).toEqual({});
  });

  it('defaults a podFailurePolicy onPodConditions pattern to status True', async () => {
    const spec =
      '  podFailurePolicy:\n    rules:\n    - {action: Ignore, onPodConditions: [{type: DisruptionTarget}]}\n';
    expect((await kubectl(['apply', '-f', '-'], job('policy', spec))).code).toBe(0);
    const got = await rawRequest(cp, 'GET', '/apis/batch/v1/namespaces/default/jobs/policy');
    expect(got.body.spec.podFailurePolicy.rules[0].onPodConditions).toEqual([
      { type: 'DisruptionTarget', status: 'True' },
    ]);
    expect(got.body.spec.podReplacementPolicy).toBe('Failed');
  });

  it('refuses a pod template that restarts Always', async () => {
    const bad = job('always').replace('restartPolicy: Never', 'restartPolicy: Always');
    const result = await kubectl(['apply', '-f', '-'], bad);
    expect(result.code).not.toBe(0);
    expect(result.err).toContain(
      'spec.template.spec.restartPolicy: Required value: valid values: "OnFailure", "Never"',
    );
  });

  it('shows STATUS, COMPLETIONS, DURATION and AGE, and the wide columns, from what its status says', async () => {
    expect(
      (await kubectl(['apply', '-f', '-'], job('work', '  parallelism: 3\n  completions: null\n'))).code,
    ).toBe(0);
    let out = await kubectl(['get', 'jobs']);
    expect(out.out.split('\n')[0]).toMatch(/^NAME\s+STATUS\s+COMPLETIONS\s+DURATION\s+AGE$/);
    expect(out.out).toMatch(/\nonce\s+Running\s+0\/1\s+\d+s\n/);
    expect(out.out).toMatch(/\nwork\s+Running\s+0\/1 of 3\s+\d+s/);
    const started = new Date(Date.now() - 90_000).toISOString().replace(/\.\d+Z$/, 'Z');
    const done = new Date(Date.now() - 30_000).toISOString().replace(/\.\d+Z$/, 'Z');
    const patch = {
      status: {
        startTime: started,
        completionTime: done,
        succeeded: 1,
        conditions: [
          { type: 'SuccessCriteriaMet', status: 'True' },
          { type: 'Complete', status: 'True' },
        ],
      },
    };
    const patched = await kubectl([
      'patch',
      'job',
      'once',
      '--subresource=status',
      '--type=merge',
      '-p',
      JSON.stringify(patch),
    ]);
    expect(patched.code).toBe(0);
    out = await kubectl(['get', 'job', 'once', '-o', 'wide']);
    const [header, row] = out.out.split('\n');
    expect(header).toMatch(/^NAME\s+STATUS\s+COMPLETIONS\s+DURATION\s+AGE\s+CONTAINERS\s+IMAGES\s+SELECTOR$/);
    expect(row).toMatch(
      /^once\s+Complete\s+1\/1\s+60s\s+\S+\s+main\s+busybox:1\.36\s+batch\.kubernetes\.io\/controller-uid=/,
    );
  });
});
