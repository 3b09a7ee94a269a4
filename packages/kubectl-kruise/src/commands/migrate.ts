import type { Command } from '../command.ts';
import { createCloneSetFromDeployment, migrateReplicas } from '../migrate/migrate.ts';

/**
 * `kubectl kruise migrate CloneSet --from Deployment` (kruise-tools): `--create` makes a CloneSet
 * from a Deployment; without it, replicas move from the Deployment to an existing CloneSet,
 * `--max-surge` at a time.
 */
export const migrate: Command = {
  path: 'migrate',
  short: 'Migrate from K8s original workloads to Kruise workloads',
  usage: 'kubectl kruise migrate [DST_KIND] --from [SRC_KIND] [flags]',
  long: `Migrate from K8s original workloads to Kruise workloads

Examples:
  # Create an empty CloneSet from an existing Deployment.
  kubectl kruise migrate CloneSet --from Deployment -n default --src-name deployment-name --dst-name cloneset-name --create

  # Create a same replicas CloneSet from an existing Deployment.
  kubectl kruise migrate CloneSet --from Deployment -n default --src-name deployment-name --dst-name cloneset-name --create --copy

  # Migrate replicas from an existing Deployment to an existing CloneSet.
  kubectl kruise migrate CloneSet --from Deployment -n default --src-name deployment-name --dst-name cloneset-name --replicas 10 --max-surge=2`,
  flags: [
    { name: 'from', type: 'string', usage: 'Type of the source workload (e.g. Deployment).' },
    { name: 'src-name', type: 'string', usage: 'Name of the source workload.' },
    { name: 'dst-name', type: 'string', usage: 'Name of the destination workload.' },
    { name: 'create', type: 'bool', usage: 'Create dst workload with replicas=0 from src workload.' },
    { name: 'copy', type: 'bool', usage: 'Copy replicas from src workload when create.' },
    {
      name: 'replicas',
      type: 'int',
      default: -1,
      usage: 'The replicas needs to migrate, -1 indicates all replicas in src workload.',
    },
    { name: 'max-surge', type: 'int', default: 1, usage: 'Max surge during migration.' },
    {
      name: 'timeout-seconds',
      type: 'int',
      default: -1,
      usage: 'Timeout seconds for migration, -1 indicates no limited.',
    },
  ],
  async run(ctx) {
    if (!ctx.given.has('namespace')) throw new Error('must specify namespace by -n or --namespace');
    if (ctx.args.length === 0) throw new Error('must specify workload type like CloneSet');
    if (ctx.args.length > 1) throw new Error('more than one given args');
    const from = String(ctx.flags.from ?? '');
    const src = String(ctx.flags['src-name'] ?? '');
    const create = ctx.flags.create === true;
    // kruise-tools names the new CloneSet after --dst-name; with --create and none, the Deployment's name
    const dst = String(ctx.flags['dst-name'] || (create ? src : ''));
    if (!from) throw new Error('must specify --from');
    if (!src) throw new Error('must specify --src-name');
    if (!dst) throw new Error('must specify --dst-name');
    if (!['CloneSet', 'cloneset', 'clone'].includes(ctx.args[0]!))
      throw new Error('currently only supported CloneSet as dst type');
    if (!['Deployment', 'deployment'].includes(from))
      throw new Error('currently only supported Deployment as src type');
    const namespace = ctx.namespace();
    const client = ctx.client();
    if (create) {
      await createCloneSetFromDeployment(client, namespace, src, dst, ctx.flags.copy === true);
      ctx.out(`Successfully created from Deployment/${src} to CloneSet/${dst}\n`);
      return;
    }
    const replicas = Number(ctx.flags.replicas);
    const maxSurge = Number(ctx.flags['max-surge']);
    const timeout = Number(ctx.flags['timeout-seconds']);
    await migrateReplicas(client, {
      namespace,
      src,
      dst,
      ...(replicas >= 0 ? { replicas } : {}),
      maxSurge: Math.max(maxSurge, 1),
      ...(timeout > 0 ? { timeoutSeconds: timeout } : {}),
      out: (line) => ctx.out(`${line}\n`),
      signal: ctx.signal,
    });
  },
};
