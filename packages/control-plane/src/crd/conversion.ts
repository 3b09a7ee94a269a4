import { randomUUID } from 'node:crypto';
import { targetOf } from '../admission/admission.ts';
import { callWebhook } from '../admission/webhook-client.ts';
import { ApiError } from '../errors.ts';
import { apiVersionOf, type KubeObject, type ResourceType } from '../registry/types.ts';
import type { Store } from '../store/store.ts';

const WEBHOOK_TIMEOUT_MS = 30_000;

/** `group/version, Kind=Kind` as Go prints a GroupVersionKind. */
const gvkOf = (obj: KubeObject) => `${obj.apiVersion}, Kind=${obj.kind}`;

const failure = (message: string) => new ApiError(500, 'InternalError', message);

/**
 * Converts custom resources between the versions of their CRD as kube-apiserver does: `None`
 * rewrites `apiVersion` only; `Webhook` sends a `ConversionReview` (apiextensions.k8s.io/v1) to the
 * CRD's webhook (URL or Service, trusting its `caBundle`) and keeps each object's metadata except
 * labels and annotations, which the webhook may change.
 */
export class CrdConverter {
  private readonly store: Store;

  constructor(store: Store) {
    this.store = store;
  }

  /** Whether objects of this type may need converting (a custom resource of a multi-version CRD). */
  static converts(type: ResourceType): boolean {
    return Boolean(type.crdName && type.storageVersion);
  }

  /** The objects at `apiVersion` (those already there are returned as they are). */
  async convert(type: ResourceType, objects: KubeObject[], apiVersion: string): Promise<KubeObject[]> {
    const pending = objects.map((o, i) => ({ o, i })).filter(({ o }) => o.apiVersion !== apiVersion);
    if (!pending.length) return objects;
    const out = [...objects];
    if (type.conversion?.strategy !== 'Webhook') {
      for (const { o, i } of pending) out[i] = { ...o, apiVersion };
      return out;
    }
    const converted = await this.viaWebhook(
      type,
      pending.map(({ o }) => o),
      apiVersion,
    );
    pending.forEach(({ o, i }, n) => {
      const c = converted[n]!;
      out[i] = {
        ...c,
        apiVersion,
        kind: o.kind,
        metadata: { ...o.metadata, labels: c.metadata?.labels, annotations: c.metadata?.annotations },
      };
      if (out[i]!.metadata!.labels === undefined) delete out[i]!.metadata!.labels;
      if (out[i]!.metadata!.annotations === undefined) delete out[i]!.metadata!.annotations;
    });
    return out;
  }

  /** One object at the type's storage version. */
  async toStorage(type: ResourceType, obj: KubeObject): Promise<KubeObject> {
    const [stored] = await this.convert(
      type,
      [obj],
      apiVersionOf({ group: type.group, version: type.storageVersion! }),
    );
    return stored!;
  }

  /** One object at the type's served version. */
  async toServed(type: ResourceType, obj: KubeObject): Promise<KubeObject> {
    const [served] = await this.convert(type, [obj], apiVersionOf(type));
    return served!;
  }

  private async viaWebhook(
    type: ResourceType,
    objects: KubeObject[],
    apiVersion: string,
  ): Promise<KubeObject[]> {
    const webhook = type.conversion?.webhook ?? {};
    const gvk = gvkOf(objects[0]!);
    const uid = randomUUID();
    if (!(webhook.conversionReviewVersions ?? []).includes('v1'))
      throw failure(`conversion webhook for ${gvk} failed: no supported conversion review versions`);
    let review: any;
    try {
      const target = targetOf(this.store, { clientConfig: webhook.clientConfig, timeoutSeconds: 30 });
      review = await callWebhook(
        target,
        JSON.stringify({
          apiVersion: 'apiextensions.k8s.io/v1',
          kind: 'ConversionReview',
          request: { uid, desiredAPIVersion: apiVersion, objects },
        }),
        WEBHOOK_TIMEOUT_MS,
      );
    } catch (err) {
      throw failure(
        `conversion webhook for ${gvk} failed: ${(err as Error).message.replace(/^failed to call webhook: /, '')}`,
      );
    }
    const fail = (why: string) => failure(`conversion webhook for ${gvk} failed: ${why}`);
    if (review?.apiVersion !== 'apiextensions.k8s.io/v1' || review?.kind !== 'ConversionReview')
      throw fail(
        `expected webhook response of apiextensions.k8s.io/v1, Kind=ConversionReview, got ${review?.apiVersion ?? ''}, Kind=${review?.kind ?? ''}`,
      );
    const response = review.response;
    if (!response) throw fail('no response provided');
    if (response.uid !== uid) throw fail(`expected response.uid="${uid}", got "${response.uid ?? ''}"`);
    if (response.result?.status !== 'Success')
      throw fail(
        response.result?.message ||
          `response.result.status was '${response.result?.status ?? ''}', not 'Success'`,
      );
    const converted: KubeObject[] = response.convertedObjects ?? [];
    if (converted.length !== objects.length)
      throw failure(
        `conversion webhook for ${gvk} returned ${converted.length} objects, expected ${objects.length}`,
      );
    return converted;
  }
}
