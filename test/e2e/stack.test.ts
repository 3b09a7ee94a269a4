import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KruiseResources } from '@kruise/api';
import { KubeClient, Resources } from '@kruise/runtime';
import { freePort } from '@kruise/stack/free-port';
import type { RunRecord } from '@kruise/stack/leftovers';
import { type Program, type StartOptions, startProgram, watchProgram } from '@kruise/stack/program';
import { repoRoot } from '@kruise/stack/repo-root';
import { afterAll, describe, expect, it } from 'vitest';
import { runBinary } from '../../packages/control-plane/test/kubectl-run.ts';
import { kubectlPath } from '../support/kube-tools.ts';
import { asNobody } from '../support/nobody.ts';
import { podLog } from '../support/pod-log.ts';
import { until } from '../support/poll.ts';

/** `pnpm start`'s program, as a user runs it: a terminal's job, stopped with Ctrl-C (SIGINT to its process group). */
const running: Program[] = [];
const dirs: string[] = [];
const cleanups: (() => void)[] = [];
afterAll(async () => {
  for (const p of running) await p.stop();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
  for (const c of cleanups) c();
});

function startStack(args: string[], options: StartOptions = {}): Program {
  const stack = startProgram(
    'pnpm start',
    'packages/stack/src/main.ts',
    args,
    {},
    { ...options, detached: true },
  );
  running.push(stack);
  return stack;
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('pnpm start (the local stack)', () => {
  it('runs the whole system with the examples to completion, then stops everything it started', async () => {
    const stateDir = mkdtempSync(join(tmpdir(), 'kruise-stack-'));
    const runtimeDir = `/tmp/kst-${process.pid}`;
    dirs.push(stateDir);
    const stack = startStack([
      `--state-dir=${stateDir}`,
      `--runtime-dir=${runtimeDir}`,
      `--registry-port=${await freePort()}`,
    ]);
    const pids = await stack.waitFor(
      /kruise-manager running \(pid (\d+).*\n.*local node kruise-local (?:\(zone-a\) )?running \(pid (\d+)\).*kruise-daemon running \(pid (\d+)\)/,
      120_000,
    );
    await stack.waitFor(/\[kruise\] ready/, 30_000);
    const containerdPid = Number(readFileSync(join(runtimeDir, 'containerd/pid'), 'utf8'));
    await stack.waitFor(/examples complete/, 120_000);
    const out = stack.output();
    expect(out).toContain('export KUBECONFIG=');
    for (const name of ['kruise-manager', 'kruise-daemon-kruise-local', 'local-node-kruise-local'])
      expect(readFileSync(join(stateDir, 'logs', `${name}.log`), 'utf8'), name).toMatch(/"level":"info"/);
    expect(out).toMatch(/ImagePullJob big-image: 1\/1 nodes succeeded.*\(complete\)/);
    expect(out).toMatch(/NodeImage kruise-local: .*big:v1 (Pulling|Succeeded)/);
    expect(out).toMatch(
      /ContainerRecreateRequest demo-restart: Completed \(app Succeeded, sidecar Succeeded\)/,
    );
    const client = KubeClient.fromString(readFileSync(join(stateDir, 'kubeconfig'), 'utf8'));
    // The Advanced StatefulSet's pods, as printed ready at busybox:v1, are the same pods (UID, IP)
    // that now run busybox:v2 after one restart.
    const printedAtV1 = new Map(
      [
        ...out.matchAll(/ pod (demo-asts-\d) ordinal=\d (uid=\S+ ip=\S+) \S*busybox:v1 restarts=0 ready\n/g),
      ].map((m) => [m[1], m[2]]),
    );
    expect([...printedAtV1.keys()].sort()).toEqual(['demo-asts-0', 'demo-asts-1', 'demo-asts-2']);
    const asts = await client.list(Resources.Pod, { namespace: 'default', labelSelector: 'app=demo-asts' });
    expect(
      asts.items.map((p: any) => [
        p.metadata.name,
        `uid=${p.metadata.uid} ip=${p.status.podIP}`,
        p.spec.containers[0].image.endsWith('/busybox:v2'),
        p.status.containerStatuses[0].restartCount,
      ]),
    ).toEqual([...printedAtV1].sort().map(([name, identity]) => [name, identity, true, 1]));
    expect(out).toContain(
      'examples: Advanced StatefulSet demo-asts updated in place: every pod kept its name, UID and IP',
    );
    expect(out).toContain(
      'examples: Advanced DaemonSet demo-ads updated in place: every pod kept its name, UID and IP',
    );
    const pod = await client.get(Resources.Pod, 'default', 'demo');
    expect(pod.status.containerStatuses.map((c: any) => c.restartCount)).toEqual([1, 1]);
    // kubectl logs demo -c app [--previous]: the run before the CRR's restart, and the current one.
    expect(await podLog(client, 'demo', { container: 'app', previous: true })).toMatch(
      /^app: started \d\d:\d\d:\d\d\napp: stopping\n$/,
    );
    expect(await podLog(client, 'demo', { container: 'app' })).toMatch(/^app: started \d\d:\d\d:\d\d\n$/);
    // The PATH line it prints makes `kubectl kruise` work (the real kubectl finds the plugin).
    const pluginDir = /export PATH=(\S+):\$PATH/.exec(out)?.[1];
    expect(pluginDir).toBeDefined();
    const history = await runBinary(
      kubectlPath(),
      ['kruise', 'rollout', 'history', 'cloneset/demo-cloneset'],
      {
        PATH: `${pluginDir}:${process.env.PATH}`,
        KUBECONFIG: join(stateDir, 'kubeconfig'),
      },
    );
    expect(history).toMatchObject({ code: 0, err: '' });
    expect(history.out).toMatch(/^cloneset\.apps\.kruise\.io\/demo-cloneset \nREVISION {2}CHANGE-CAUSE\n1 /);
    // Ctrl-C, and again while it stops: every program of the job gets both, and nothing may die halfway.
    const exited = new Promise<number | null>((r) => stack.child.once('exit', (code) => r(code)));
    process.kill(-stack.child.pid!, 'SIGINT');
    await stack.waitFor(/\[kruise\] stopping/, 10_000);
    if (stack.child.exitCode === null) process.kill(-stack.child.pid!, 'SIGINT');
    expect(await exited).toBe(0);
    // Its last line may still be in the pipe at exit: waitFor reads until the pipes close.
    await stack.waitFor(/\[kruise\] stopped/, 10_000);
    for (const pid of [pids[1], pids[2], pids[3], containerdPid])
      expect(alive(Number(pid)), `pid ${pid}`).toBe(false);
    expect(readFileSync('/proc/self/mountinfo', 'utf8')).not.toContain(runtimeDir);
    expect(existsSync(runtimeDir)).toBe(false);
  }, 300_000);

  it('without root says what is missing and runs the control plane and kruise-manager', async () => {
    const stateDir = mkdtempSync(join(tmpdir(), 'kruise-stack-'));
    dirs.push(stateDir);
    chmodSync(stateDir, 0o777);
    // As nobody, from a view of the clone nobody can read wherever the clone lives (e.g. under /root).
    const nobody = asNobody();
    cleanups.push(nobody.remove);
    const stack = startStack([`--state-dir=${stateDir}`], nobody.options);
    await stack.waitFor(/\[kruise\] ready/, 60_000);
    expect(stack.output()).toContain('cannot run here: not running as root');
    expect(stack.output()).toContain('running the control plane and kruise-manager only');
    const client = KubeClient.fromString(readFileSync(join(stateDir, 'kubeconfig'), 'utf8'));
    const denied = await client
      .create(KruiseResources.ImagePullJob, {
        metadata: { name: 'bad', namespace: 'default' },
        spec: { image: '' },
      })
      .catch((e) => e);
    expect(denied.message).toBe(
      'admission webhook "vimagepulljob.kb.io" denied the request: image can not be empty',
    );
    expect(await stack.stop(60_000)).toBe(0);
  }, 120_000);

  it('under a supervisor (SIGTERM to the group of `npx -y pnpm@10 start`, SIGKILL 1 s later) leaves nothing running: a start at once waits for its watchdog to stop it all; a start after a run killed with its watchdog stops what it left and says so', async () => {
    const stateDir = mkdtempSync(join(tmpdir(), 'kruise-stack-'));
    const runtimeDir = `/tmp/ksv-${process.pid}`;
    dirs.push(stateDir);
    const port = await freePort();
    const args = [
      `--state-dir=${stateDir}`,
      `--runtime-dir=${runtimeDir}`,
      `--registry-port=${port}`,
      '--no-examples',
    ];
    // What the stack records: its own PID, the watchdog's, its programs'; cri-stack.sh's PID files.
    const recorded = () => {
      const r = JSON.parse(readFileSync(join(stateDir, 'run.json'), 'utf8')) as RunRecord;
      const daemon = (name: string) => Number(readFileSync(join(runtimeDir, name, 'pid'), 'utf8'));
      return { ...r, registry: daemon('registry'), containerd: daemon('containerd') };
    };
    const portOpen = () =>
      new Promise<boolean>((resolve) =>
        connect(port, '127.0.0.1')
          .once('connect', function (this: Socket) {
            this.destroy();
            resolve(true);
          })
          .once('error', () => resolve(false)),
      );
    const nothingLeft = async (r: ReturnType<typeof recorded>) => {
      const pids = [r.pid, ...r.programs.map((p) => p.pid), r.registry, r.containerd];
      await until(
        async () =>
          pids.every((p) => !alive(p)) && !existsSync(runtimeDir) && !(await portOpen()) ? true : undefined,
        60_000,
      );
    };

    // 1. As a supervisor stops it: SIGTERM to the process group, SIGKILL to the group 1 s later …
    const wrapper = watchProgram(
      'npx pnpm start',
      spawn('npx', ['-y', 'pnpm@10', 'start', '--', ...args], {
        cwd: repoRoot,
        detached: true,
        stdio: ['ignore', 'pipe', 'pipe'],
      }),
    );
    running.push(wrapper);
    await wrapper.waitFor(/\[kruise\] ready/, 240_000);
    const first = recorded();
    expect(alive(first.registry) && (await portOpen())).toBe(true);
    process.kill(-wrapper.child.pid!, 'SIGTERM');
    // the supervisor's grace before its SIGKILL (part of the scenario, not a wait for something)
    await new Promise((r) => setTimeout(r, 1000));
    try {
      process.kill(-wrapper.child.pid!, 'SIGKILL');
    } catch {
      // the whole group had already exited
    }
    // … and is started again at once: the new run waits for the killed run's watchdog, which stops
    // everything that run left, before it clears the logs and starts (no clean-up racing it, no
    // stack trace).
    const killed = startStack(args);
    await killed.waitFor(/\[kruise\] ready/, 240_000);
    const again = killed.output();
    expect(again).toContain(
      `[kruise] waiting for the watchdog (pid ${first.watchdog}) of an earlier, killed run (pid ${first.pid}) to stop what it left\n`,
    );
    expect(again).not.toContain('stopped what an earlier, killed run');
    expect(again).not.toMatch(/\n\s+at /);
    const firstPids = [first.pid, ...first.programs.map((p) => p.pid), first.registry, first.containerd];
    expect(firstPids.filter(alive)).toEqual([]);
    // the watchdog had written its note before the new run cleared the logs
    expect(existsSync(join(stateDir, 'logs/watchdog.log'))).toBe(false);

    // 2. A run killed together with its watchdog leaves the registry and containerd running …
    const second = recorded();
    process.kill(second.watchdog!, 'SIGKILL');
    process.kill(-killed.child.pid!, 'SIGKILL');
    await until(() => (alive(second.pid) ? undefined : true));
    expect(alive(second.registry) && alive(second.containerd)).toBe(true);
    // … and the next start stops them by the PIDs recorded, says so in one line, and runs.
    const next = startStack(args);
    await next.waitFor(/\[kruise\] ready/, 240_000);
    const line = next
      .output()
      .split('\n')
      .filter((l) => l.includes('earlier, killed run'));
    expect(line).toHaveLength(1);
    expect(line[0]).toContain(`[kruise] stopped what an earlier, killed run (pid ${second.pid}) left: `);
    expect(line[0]).toContain(`registry (pid ${second.registry})`);
    expect(line[0]).toContain(`containerd (pid ${second.containerd})`);
    expect(alive(second.registry) || alive(second.containerd)).toBe(false);
    const third = recorded();
    process.kill(-next.child.pid!, 'SIGINT');
    expect(await next.stop(60_000)).toBe(0);
    await nothingLeft(third);
    expect(existsSync(join(stateDir, 'run.json'))).toBe(false);
  }, 600_000);
});
