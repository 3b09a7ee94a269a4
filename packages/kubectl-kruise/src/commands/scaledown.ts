import { labelSelectorString } from '@kruise/kube-compat/label-selector';
import { Resources } from '@kruise/runtime/kube/resources';
import type { Command } from '../command.ts';
import { ownedActivePods } from '../restart-in-place/workload.ts';
import { resolveTargets, targetName } from '../targets.ts';

/** Go's `%s` of a []string: `[a b]`. */
const goList = (items: readonly string[]) => `[${items.join(' ')}]`;

/**
 * `kubectl kruise scaledown cloneset/x --pods a,b` (kruise-tools): deletes the named pods through
 * the CloneSet — appends them to `spec.scaleStrategy.podsToDelete` and lowers `spec.replicas` by as
 * many, in one update guarded by the resourceVersion. Beyond kruise-tools, a name that is not a
 * live pod of the CloneSet, or is listed already, is refused before anything is written (it would
 * lower replicas and so delete some other pod).
 */
export const scaledown: Command = {
  path: 'scaledown',
  short: 'Scaledown a cloneset with selective Pods',
  usage: 'kubectl kruise scaledown [CLONESET] --pods [POD1,POD2] -n [NAMESPACE]',
  long: `Scaledown a cloneset with selective Pods

Examples:
  # Scale down 2 with selective pods
  kubectl kruise scaledown cloneset/cloneset-demo --pods pod-1,pod-2 -n default`,
  flags: [{ name: 'pods', type: 'string', usage: 'Name of the pods to delete' }],
  async run(ctx) {
    const pods = String(ctx.flags.pods ?? '')
      .split(',')
      .map((p) => p.trim())
      .filter(Boolean);
    if (pods.length === 0) throw new Error('must specify one pod name');
    const targets = await resolveTargets(ctx, ctx.args);
    const t = targets[0]!;
    if (t.kind.kind !== 'CloneSet')
      throw new Error('currently only supported CloneSet selective pods deletion');
    const client = ctx.client();
    const cs = await client.get(t.kind.resource, t.namespace, t.name);
    const listed = new Set<string>(cs.spec?.scaleStrategy?.podsToDelete ?? []);
    const selected = await client.listAll(Resources.Pod, {
      namespace: t.namespace,
      labelSelector: labelSelectorString(cs.spec?.selector),
    });
    const owned = new Set(ownedActivePods(cs, selected.items).map((p) => p.metadata!.name as string));
    const unique = [...new Set(pods)];
    for (const pod of unique) {
      if (listed.has(pod))
        throw new Error(`pod ${pod} is already in scaleStrategy.podsToDelete of ${targetName(t)}`);
      if (!owned.has(pod)) throw new Error(`pod ${pod} is not a pod of ${targetName(t)}`);
    }
    const replicas = (cs.spec?.replicas ?? 1) - unique.length;
    cs.spec = {
      ...cs.spec,
      replicas,
      scaleStrategy: { ...cs.spec?.scaleStrategy, podsToDelete: [...listed, ...unique] },
    };
    try {
      await client.update(t.kind.resource, cs);
    } catch (err) {
      ctx.out(`${t.name} delete pods ${goList(unique)} failed\n`);
      throw new Error(`scaledown cloneset ${t.name} failed, error is ${(err as Error).message}`);
    }
    ctx.out(`# ${t.name} delete pods ${goList(unique)} successfully\n`);
    ctx.out(`${targetName(t)} selective pod deletion\n`);
  },
};
