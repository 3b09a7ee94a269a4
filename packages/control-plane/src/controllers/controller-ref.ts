import { labelSelectorMatches } from '@kruise/kube-compat/label-selector';
import type { ObjectService } from '../api/objects.ts';
import type { UserInfo } from '../auth/attributes.ts';
import type { KubeObject, ResourceType } from '../registry/types.ts';

/** An ownerReference as a controller writes it on what it controls. */
export interface ControllerRef {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller: true;
  blockOwnerDeletion: true;
}

/** The controller ownerReference `owner` puts on its pods or ReplicaSets. */
export function controllerRefTo(owner: KubeObject): ControllerRef {
  return {
    apiVersion: owner.apiVersion ?? 'apps/v1',
    kind: String(owner.kind),
    name: owner.metadata?.name,
    uid: owner.metadata?.uid,
    controller: true,
    blockOwnerDeletion: true,
  };
}

/** The controller ownerReference of an object, if any. */
export function controllerOf(obj: KubeObject): { kind?: string; name?: string; uid?: string } | undefined {
  return (obj.metadata?.ownerReferences ?? []).find((r: { controller?: boolean }) => r?.controller === true);
}

/**
 * client-go's ControllerRefManager: of `candidates` (same namespace), those `owner` controls
 * after adopting orphans its selector matches (unless it is being deleted) and releasing the ones
 * it controls that its selector no longer matches. Objects being deleted are neither adopted nor
 * released. Adoption and release are patches of ownerReferences checked against the object's uid.
 */
export async function claimObjects(
  objects: ObjectService,
  type: ResourceType,
  owner: KubeObject,
  candidates: KubeObject[],
  user: UserInfo,
): Promise<KubeObject[]> {
  const uid = owner.metadata?.uid;
  const selector = owner.spec?.selector;
  const claimed: KubeObject[] = [];
  const pending: Promise<unknown>[] = [];
  for (const obj of candidates) {
    const ref = controllerOf(obj);
    const matches = labelSelectorMatches(selector, obj.metadata?.labels);
    if (ref) {
      if (ref.uid !== uid) continue;
      if (matches || obj.metadata?.deletionTimestamp) {
        claimed.push(obj);
        continue;
      }
      pending.push(rewriteRefs(objects, type, obj, user, (refs) => refs.filter((r) => r.uid !== uid)));
      continue;
    }
    if (!matches || obj.metadata?.deletionTimestamp || owner.metadata?.deletionTimestamp) continue;
    pending.push(
      rewriteRefs(objects, type, obj, user, (refs) =>
        refs.some((r) => r.controller) ? undefined : [...refs, controllerRefTo(owner)],
      ).then((adopted) => {
        if (adopted) claimed.push(adopted);
      }),
    );
  }
  await Promise.all(pending);
  return claimed;
}

/** Patches an object's ownerReferences if it is still the same object; resolves with it, or undefined. */
async function rewriteRefs(
  objects: ObjectService,
  type: ResourceType,
  obj: KubeObject,
  user: UserInfo,
  change: (refs: any[]) => any[] | undefined,
): Promise<KubeObject | undefined> {
  try {
    return await objects.update(
      type,
      obj.metadata?.namespace,
      obj.metadata?.name,
      {
        patch: (cur) => {
          if (cur.metadata?.uid !== obj.metadata?.uid) throw new Error('object replaced');
          const refs = change([...(cur.metadata?.ownerReferences ?? [])]);
          if (!refs) throw new Error('controlled by another owner');
          return { ...cur, metadata: { ...cur.metadata, ownerReferences: refs.length ? refs : undefined } };
        },
      },
      { user, fieldManager: 'kube-controller-manager' },
    );
  } catch {
    // gone, replaced or claimed meanwhile: its own event brings the owner back
    return undefined;
  }
}
