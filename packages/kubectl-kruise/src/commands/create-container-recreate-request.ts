import type { ContainerRecreateRequest } from '@kruise/api';
import { KruiseResources } from '@kruise/api/kinds';
import type { KubeObject } from '@kruise/runtime/kube/client';
import { isNotFound } from '@kruise/runtime/kube/errors';
import { Resources } from '@kruise/runtime/kube/resources';
import { type Command, DRY_RUN_FLAG, dryRunOf, dryRunSuffix } from '../command.ts';
import { CRR_DEFAULTS, containerRecreateRequest } from '../crr/defaults.ts';
import { UsageError } from '../errors.ts';
import { checkOutputFormat, OUTPUT_FLAG, printObject } from '../print-object.ts';

/**
 * `kubectl kruise create ContainerRecreateRequest NAME --pod=P [--containers=a,b]` (kruise-tools):
 * a request to recreate the named containers of a pod (all of them by default) with kruise-tools'
 * defaults; the pod and its containers are checked first.
 */
export const createContainerRecreateRequest: Command = {
  path: 'create ContainerRecreateRequest',
  short: 'Create a crr with the specified name.',
  usage: 'kubectl kruise create ContainerRecreateRequest NAME --pod=podName [--containers=container]',
  long: `Create a crr with the specified name.

Examples:
  NOTE: The default value of CRR is:
  strategy:
    failurePolicy: Fail
    orderedRecreate: false
    unreadyGracePeriodSeconds: ${CRR_DEFAULTS.strategy.unreadyGracePeriodSeconds}
    minStartedSeconds: ${CRR_DEFAULTS.strategy.minStartedSeconds}
  activeDeadlineSeconds: ${CRR_DEFAULTS.activeDeadlineSeconds}
  ttlSecondsAfterFinished: ${CRR_DEFAULTS.ttlSecondsAfterFinished}

  # Create a crr with default value to restart all containers in pod-1
  kubectl kruise create ContainerRecreateRequest my-crr --namespace=ns --pod=pod-1

  # Create a crr with default value to restart container-1 in pod-1
  kubectl kruise create ContainerRecreateRequest my-crr --namespace=ns --pod=pod-1 --containers=container-1

  # Create a crr with unreadyGracePeriodSeconds 5 to restart container-1 in pod-1
  kubectl kruise create ContainerRecreateRequest my-crr --namespace=ns --pod=pod-1 --containers=container-1 --unreadyGracePeriodSeconds=5`,
  flags: [
    { name: 'pod', short: 'p', type: 'string', required: true, usage: 'The name of the pod.' },
    { name: 'containers', type: 'strings', usage: 'The containers those need to restarted.' },
    {
      name: 'unreadyGracePeriodSeconds',
      short: 'u',
      type: 'int',
      default: CRR_DEFAULTS.strategy.unreadyGracePeriodSeconds,
      usage:
        'UnreadyGracePeriodSeconds is the optional duration in seconds to mark Pod as not ready over this duration before executing preStop hook and stopping the container',
    },
    {
      name: 'minStartedSeconds',
      short: 'm',
      type: 'int',
      default: CRR_DEFAULTS.strategy.minStartedSeconds,
      usage:
        'Minimum number of seconds for which a newly created container should be started and ready without any of its container crashing, for it to be considered Succeeded.',
    },
    {
      name: 'field-manager',
      type: 'string',
      default: 'kubectl kruise-create',
      usage: 'Name of the manager used to track field ownership.',
    },
    DRY_RUN_FLAG,
    OUTPUT_FLAG,
  ],
  async run(ctx) {
    if (ctx.args.length === 0) throw new UsageError('NAME is required');
    if (ctx.args.length > 1) throw new UsageError(`exactly one NAME is required, got ${ctx.args.length}`);
    checkOutputFormat(ctx);
    const strategy = dryRunOf(ctx);
    const namespace = ctx.namespace();
    const podName = String(ctx.flags.pod);
    const client = ctx.client();
    let pod: KubeObject;
    try {
      pod = await client.get(Resources.Pod, namespace, podName);
    } catch (err) {
      if (isNotFound(err)) throw new Error(`pod ${podName} in namespace ${namespace} not exist`);
      throw err;
    }
    const inPod = (pod.spec?.containers ?? []).map((c: { name: string }) => c.name as string);
    const asked = ctx.flags.containers as string[];
    if (!asked.every((c) => inPod.includes(c))) throw new Error('has container not exist');
    const numberFlag = (name: string) => Number(ctx.flags[name]);
    let crr: ContainerRecreateRequest = containerRecreateRequest({
      namespace,
      name: ctx.args[0]!,
      podName,
      containers: asked.length ? inPod.filter((c: string) => asked.includes(c)) : inPod,
      unreadyGracePeriodSeconds: numberFlag('unreadyGracePeriodSeconds'),
      minStartedSeconds: numberFlag('minStartedSeconds'),
    });
    if (strategy !== 'client')
      crr = await client.create<ContainerRecreateRequest & KubeObject>(
        KruiseResources.ContainerRecreateRequest,
        crr,
        {
          dryRun: strategy === 'server',
          fieldManager: String(ctx.flags['field-manager']),
        },
      );
    printObject(ctx, crr, 'created', dryRunSuffix(strategy));
  },
};
