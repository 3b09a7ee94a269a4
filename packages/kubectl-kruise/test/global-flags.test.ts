import { KruiseResources } from '@kruise/api';
import { Resources } from '@kruise/runtime';
import { describe, expect, it } from 'vitest';
import { cloneSet } from '../../manager/test/cloneset/harness.ts';
import { usePluginEnv } from './plugin-env.ts';

/** A kubeconfig that does not exist: only `--kubeconfig` on the command line can make a run work. */
const NO_KUBECONFIG = { KUBECONFIG: '/nonexistent/kubeconfig' };

const { env, plugin } = usePluginEnv(async (env) => {
  await env.client.create(Resources.Namespace, { metadata: { name: 'team' } });
  await env.client.create(KruiseResources.CloneSet, {
    ...cloneSet('web', { replicas: 0 }),
    metadata: { name: 'web', namespace: 'team' },
  });
});

const imageOf = async () =>
  (await env.client.get(KruiseResources.CloneSet, 'team', 'web')).spec.template.spec.containers[0].image;

describe('kubectl kruise with kubectl’s global flags before the command, as cobra takes them', () => {
  it('acts on what the flags name: -n NS --kubeconfig F set image …, --namespace=NS rollout …, -n=NS …', async () => {
    const k = ['--kubeconfig', plugin.kubeconfig];
    const set = await plugin.kruise(
      ['-n', 'team', ...k, 'set', 'image', 'cloneset/web', 'main=busybox:v2'],
      NO_KUBECONFIG,
    );
    expect(set).toEqual({ code: 0, out: 'cloneset.apps.kruise.io/web image updated\n', err: '' });
    expect(await imageOf()).toBe('busybox:v2');
    const history = await plugin.kruise([...k, '--namespace=team', 'rollout', 'history', 'cloneset/web'], {
      ...NO_KUBECONFIG,
    });
    expect(history).toMatchObject({ code: 0, err: '' });
    expect(history.out).toMatch(/^cloneset\.apps\.kruise\.io\/web \nREVISION {2}CHANGE-CAUSE\n/);
    // between the group and its command, and after it
    const status = await plugin.kruise(
      ['rollout', '-n=team', 'status', 'cloneset/web', `--kubeconfig=${plugin.kubeconfig}`],
      NO_KUBECONFIG,
    );
    expect(status).toMatchObject({ code: 0, err: '' });
    expect(status.out).toMatch(/^CloneSet rolling update complete 0 pods at revision web-\w+\.\.\.\n$/);
    const pause = await plugin.kruise(['-nteam', 'rollout', 'pause', 'cloneset/web']);
    expect(pause).toEqual({ code: 0, out: 'cloneset.apps.kruise.io/web paused\n', err: '' });
    expect((await env.client.get(KruiseResources.CloneSet, 'team', 'web')).spec.updateStrategy.paused).toBe(
      true,
    );
  });

  it('fails with exit code 1 and kubectl’s words whenever it cannot carry the command line out', async () => {
    const cases: [string[], number, RegExp][] = [
      // the flags' own errors
      [
        ['--context', 'nowhere', 'rollout', 'undo', 'cloneset/web'],
        1,
        /^Error in configuration: context was not found for specified context: nowhere\n$/,
      ],
      [
        ['--frob=1', 'set', 'image', 'cloneset/web', 'main=busybox:v3'],
        1,
        /^error: unknown flag: --frob\nSee 'kubectl kruise set image --help' for usage\.\n$/,
      ],
      // flags but no command: kubectl's group answer (the help on stderr, exit 1), never a silent 0
      [['-n', 'team'], 1, /^kubectl kruise controls OpenKruise workloads\.\n[\s\S]*Available Commands:/],
      [['--bogus'], 1, /^error: unknown flag: --bogus\nSee 'kubectl kruise --help' for usage\.\n$/],
      [
        ['-n', 'team', 'frobnicate'],
        1,
        /^error: unknown command "frobnicate" for "kubectl-kruise"\nSee 'kubectl kruise --help' for usage\.\n$/,
      ],
    ];
    const results = await Promise.all(cases.map(([args]) => plugin.kruise(args)));
    expect(results.map((r, i) => [cases[i]![0], r.code, r.out])).toEqual(
      cases.map(([a, code]) => [a, code, '']),
    );
    for (const [i, [args, , err]] of cases.entries()) expect(results[i]!.err, args.join(' ')).toMatch(err);
    expect(await imageOf()).toBe('busybox:v2');
  });

  it('prints its help and exits 0 for a bare invocation and for --help', async () => {
    for (const args of [[], ['--help'], ['-n', 'team', '-h']]) {
      const r = await plugin.kruise(args);
      expect({ code: r.code, err: r.err }, args.join(' ')).toEqual({ code: 0, err: '' });
      expect(r.out).toMatch(/^kubectl kruise controls OpenKruise workloads\.\n\nAvailable Commands:\n/);
    }
  });
});
