import type { Container, ContainerStatus, Pod } from 'kubernetes-types/core/v1.js';
import { describe, expect, it } from 'vitest';
import { needsSidecarsStopped, sidecarsByAction } from '../../src/controllers/sidecarterminator/sidecars.ts';
import { trimPod } from '../../src/informers.ts';

const EXIT = { name: 'KRUISE_TERMINATE_SIDECAR_WHEN_JOB_EXIT', value: 'true' };
const IGNORE = { name: 'KRUISE_TERMINATE_SIDECAR_IGNORE_EXIT_CODE', value: 'true' };
const IMAGE = { name: 'KRUISE_TERMINATE_SIDECAR_WHEN_JOB_EXIT_WITH_IMAGE', value: 'quick-exit:v1' };

/** A container state: 'run', 'wait', or a terminated exit code. */
type State = 'run' | 'wait' | number;

/** A pod whose containers are `name: [env, state]`; a state of undefined leaves the status out. */
function pod(
  restartPolicy: string | undefined,
  containers: Record<string, [Container['env'], State | undefined]>,
  extra: { phase?: string; deleting?: boolean; initContainers?: Container[] } = {},
): Pod {
  const statuses: ContainerStatus[] = Object.entries(containers)
    .filter(([, [, s]]) => s !== undefined)
    .map(([name, [, s]]) => ({
      name,
      image: 'busybox',
      imageID: '',
      ready: s === 'run',
      restartCount: 0,
      state:
        s === 'run'
          ? { running: { startedAt: '2020-01-01T00:00:00Z' } }
          : s === 'wait'
            ? { waiting: { reason: 'ContainerCreating' } }
            : { terminated: { exitCode: s as number } },
    }));
  return {
    metadata: {
      name: 'p',
      namespace: 'default',
      ...(extra.deleting ? { deletionTimestamp: '2020-01-01T00:00:00Z' } : {}),
    },
    spec: {
      ...(restartPolicy ? { restartPolicy } : {}),
      ...(extra.initContainers ? { initContainers: extra.initContainers } : {}),
      containers: Object.entries(containers).map(([name, [env]]) => ({
        name,
        image: 'busybox',
        ...(env ? { env } : {}),
      })),
    },
    status: { phase: extra.phase ?? 'Running', containerStatuses: statuses },
  };
}

describe('which pods SidecarTerminator acts on (upstream isInterestingPod)', () => {
  const cases: [string, Pod, boolean][] = [
    ['Never, main exited 0, sidecar running', pod('Never', { main: [[], 0], proxy: [[EXIT], 'run'] }), true],
    ['Never, main exited 1, sidecar running', pod('Never', { main: [[], 1], proxy: [[EXIT], 'run'] }), true],
    [
      'Never, a main container still running',
      pod('Never', { a: [[], 0], b: [[], 'run'], proxy: [[EXIT], 'run'] }),
      false,
    ],
    ['OnFailure, main succeeded', pod('OnFailure', { main: [[], 0], proxy: [[EXIT], 'run'] }), true],
    [
      'OnFailure, main failed (kubelet restarts it)',
      pod('OnFailure', { main: [[], 1], proxy: [[EXIT], 'run'] }),
      false,
    ],
    ['Always', pod('Always', { main: [[], 0], proxy: [[EXIT], 'run'] }), false],
    ['restartPolicy unset (Always)', pod(undefined, { main: [[], 0], proxy: [[EXIT], 'run'] }), false],
    ['Pending', pod('Never', { main: [[], 0], proxy: [[EXIT], 'wait'] }, { phase: 'Pending' }), false],
    ['being deleted', pod('Never', { main: [[], 0], proxy: [[EXIT], 'run'] }, { deleting: true }), false],
    ['sidecars already terminated', pod('Never', { main: [[], 0], proxy: [[EXIT], 0] }), false],
    ['no sidecar', pod('Never', { main: [[], 0], other: [[{ name: 'X', value: 'true' }], 'run'] }), false],
    ['env not "true"', pod('Never', { main: [[], 0], proxy: [[{ ...EXIT, value: 'false' }], 'run'] }), false],
    [
      'env "TRUE" (any case, as upstream)',
      pod('Never', { main: [[], 0], proxy: [[{ ...EXIT, value: 'TRUE' }], 'run'] }),
      true,
    ],
    [
      'a container without status yet',
      pod('Never', { main: [[], 0], proxy: [[EXIT], 'run'], late: [[], undefined] }),
      false,
    ],
    ['virtual-kubelet image sidecar', pod('Never', { main: [[], 0], proxy: [[IMAGE], 'run'] }), true],
    [
      'a native sidecar (init container, restartPolicy Always) is not a sidecar here',
      pod(
        'Never',
        { main: [[], 0] },
        { initContainers: [{ name: 'native', restartPolicy: 'Always', env: [EXIT] }] },
      ),
      false,
    ],
  ];
  for (const [name, p, want] of cases)
    it(`${want ? 'acts' : 'does not act'}: ${name}`, () => {
      expect(needsSidecarsStopped(p)).toBe(want);
      // the controller reads the manager's trimmed pod cache: the trim keeps what decides
      expect(needsSidecarsStopped(trimPod({ ...p, spec: { ...p.spec!, nodeName: 'n1' } }))).toBe(want);
    });

  it('sorts sidecars by action: CRR, ignore-exit-code, image replacement on virtual kubelet only', () => {
    const p = pod('Never', {
      main: [[], 0],
      normal: [[EXIT], 'run'],
      ignore: [[EXIT, IGNORE], 'run'],
      ignoreOnly: [[IGNORE], 'run'],
      image: [[IMAGE], 'run'],
      both: [[EXIT, IMAGE], 'run'],
    });
    const names = (s: Set<string>) => [...s].sort();
    const real = sidecarsByAction(p, false);
    expect([names(real.normal), names(real.ignoreExitCode), names(real.inPlaceUpdate)]).toEqual([
      ['both', 'normal'],
      ['ignore'],
      [],
    ]);
    const vk = sidecarsByAction(p, true);
    expect([names(vk.normal), names(vk.ignoreExitCode), names(vk.inPlaceUpdate)]).toEqual([
      [],
      [],
      ['both', 'image'],
    ]);
  });
});
