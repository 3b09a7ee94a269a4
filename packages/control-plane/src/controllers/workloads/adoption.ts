import { labelSelectorIsEmpty, labelSelectorMatches } from '@kruise/kube-compat/label-selector';
import type { ObjectService } from '../../api/objects.ts';
import type { UserInfo } from '../../auth/attributes.ts';
import type { KubeObject, ResourceType } from '../../registry/types.ts';
import type { Store } from '../../store/store.ts';
import { controllerOf, hasFinished, isTerminating } from './pod-state.ts';

/**
 * The pods a workload controls, after adopting the orphans its selector matches (the
 * ControllerRefManager's ClaimPods): a live pod without a controller whose labels match gets
 * `ref` as its controller reference; nothing is adopted while the owner is being deleted or when
 * its selector is empty.
 */
export async function claimPods(
  store: Store,
  objects: ObjectService,
  user: UserInfo,
  owner: KubeObject,
  ref: Record<string, unknown>,
): Promise<KubeObject[]> {
  const pods = store.list('/pods', owner.metadata?.namespace).map((e) => e.obj);
  const selector = owner.spec?.selector;
  const adoptable =
    !owner.metadata?.deletionTimestamp && selector && !labelSelectorIsEmpty(selector)
      ? pods.filter(
          (p) =>
            !controllerOf(p) &&
            !isTerminating(p) &&
            !hasFinished(p) &&
            labelSelectorMatches(selector, p.metadata?.labels),
        )
      : [];
  const podType: ResourceType = objects.registry.byResource('', 'pods')!;
  for (const pod of adoptable)
    await objects
      .update(
        podType,
        pod.metadata?.namespace,
        pod.metadata?.name,
        {
          patch: (cur) =>
            controllerOf(cur) || cur.metadata?.uid !== pod.metadata?.uid
              ? cur
              : {
                  ...cur,
                  metadata: {
                    ...cur.metadata,
                    ownerReferences: [...(cur.metadata?.ownerReferences ?? []), ref],
                  },
                },
        },
        { user },
      )
      .catch(() => undefined);
  const uid = owner.metadata?.uid;
  return store
    .list('/pods', owner.metadata?.namespace)
    .map((e) => e.obj)
    .filter((p) => controllerOf(p)?.uid === uid);
}
