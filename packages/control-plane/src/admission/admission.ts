import { randomUUID } from 'node:crypto';
import type { AdmissionHook } from '../api/context.ts';
import { ApiError, badRequest, internalError } from '../errors.ts';
import { applyJsonPatch } from '../patch/json-patch.ts';
import { apiVersionOf, type KubeObject } from '../registry/types.ts';
import type { Store } from '../store/store.ts';
import { rulesMatch, selectorsMatch } from './matching.ts';
import { callWebhook, type WebhookTarget } from './webhook-client.ts';

/** Turns through a Service's ready endpoints, one call each. */
let nextEndpoint = 0;

/** Where a webhook (admission or conversion) is reached: its URL, or its Service through one of its ready Endpoints, in turn. */
export function targetOf(store: Store, webhook: any): WebhookTarget {
  const cc = webhook.clientConfig ?? {};
  const ca = cc.caBundle ? Buffer.from(cc.caBundle, 'base64').toString('utf8') : undefined;
  if (cc.url) {
    const url = new URL(cc.url);
    return {
      host: url.hostname.replace(/^\[|\]$/g, ''),
      port: Number(url.port || 443),
      path: `${url.pathname}${url.search}`,
      serverName: url.hostname,
      ca,
      displayUrl: cc.url,
    };
  }
  const svc = cc.service ?? {};
  const port = svc.port ?? 443;
  const serverName = `${svc.name}.${svc.namespace}.svc`;
  const path = svc.path ?? '/';
  const displayUrl = `https://${serverName}:${port}${path}?timeout=${webhook.timeoutSeconds ?? 10}s`;
  const service = store.get('/services', svc.namespace, svc.name)?.obj;
  if (!service) throw new Error(`failed to call webhook: service "${svc.namespace}/${svc.name}" not found`);
  const servicePort = (service.spec?.ports ?? []).find((p: any) => p.port === port);
  const endpoints = store.get('/endpoints', svc.namespace, svc.name)?.obj;
  const ready: { host: string; port: number }[] = [];
  for (const subset of endpoints?.subsets ?? []) {
    const ports: any[] = subset.ports ?? [];
    const match =
      ports.find((p) => servicePort?.name && p.name === servicePort.name) ??
      ports.find((p) => typeof servicePort?.targetPort === 'number' && p.port === servicePort.targetPort) ??
      (ports.length === 1 ? ports[0] : undefined);
    if (!match) continue;
    for (const address of subset.addresses ?? [])
      if (address?.ip) ready.push({ host: address.ip, port: match.port });
  }
  if (ready.length) {
    // Each call goes to one ready endpoint in turn, as the Service's virtual IP spreads connections.
    const picked = ready[nextEndpoint++ % ready.length]!;
    return { ...picked, path, serverName, ca, displayUrl };
  }
  throw new Error(
    `failed to call webhook: Post "${displayUrl}": no endpoints available for service "${svc.name}"`,
  );
}

/** One admission webhook call as kube-apiserver times it (apiserver_admission_webhook_admission_duration_seconds). */
export interface WebhookCall {
  /** The webhook's name (`vpod.kb.io`). */
  name: string;
  operation: string;
  resource: string;
  subresource?: string;
  rejected: boolean;
  /** From sending the review to its answer (or failure), in ms. */
  durationMs: number;
}

/**
 * Admission through the stored Mutating- and ValidatingWebhookConfigurations, as kube-apiserver
 * does it; `observe` hears of every webhook call and how long it took.
 */
export function webhookAdmission(store: Store, observe?: (call: WebhookCall) => void): AdmissionHook {
  return async (req) => {
    const resource =
      req.phase === 'mutating'
        ? 'admissionregistration.k8s.io/mutatingwebhookconfigurations'
        : 'admissionregistration.k8s.io/validatingwebhookconfigurations';
    const configurations = store.list(resource);
    if (configurations.length === 0) return undefined;
    const nsLabels = req.type.namespaced
      ? store.get('/namespaces', '', req.namespace)?.obj.metadata?.labels
      : undefined;
    let object = req.object;
    for (const { obj: config } of configurations) {
      for (const webhook of config.webhooks ?? []) {
        if (!rulesMatch(webhook, req.type, req.operation, req.subresource)) continue;
        if (!selectorsMatch(webhook, req.type, nsLabels, object, req.oldObject)) continue;
        if (req.options.dryRun && !['None', 'NoneOnDryRun'].includes(webhook.sideEffects)) {
          throw badRequest(
            `admission webhook "${webhook.name}" has no sideEffects or sideEffects is not None or NoneOnDryRun, and the request is dryRun`,
          );
        }
        const kind = req.kind ?? { group: req.type.group, version: req.type.version, kind: req.type.kind };
        const review = {
          apiVersion: 'admission.k8s.io/v1',
          kind: 'AdmissionReview',
          request: {
            uid: randomUUID(),
            kind,
            resource: { group: req.type.group, version: req.type.version, resource: req.type.plural },
            ...(req.subresource ? { subResource: req.subresource } : {}),
            requestKind: kind,
            requestResource: { group: req.type.group, version: req.type.version, resource: req.type.plural },
            ...(req.subresource ? { requestSubResource: req.subresource } : {}),
            name: req.name || object?.metadata?.name || '',
            ...(req.namespace ? { namespace: req.namespace } : {}),
            operation: req.operation,
            userInfo: req.options.user,
            object: object ?? null,
            oldObject: req.oldObject ?? null,
            dryRun: Boolean(req.options.dryRun),
            options: {
              apiVersion: 'meta.k8s.io/v1',
              kind: `${req.operation[0]}${req.operation.slice(1).toLowerCase()}Options`,
            },
          },
        };
        let response: any;
        const started = performance.now();
        const observed = (rejected: boolean) =>
          observe?.({
            name: webhook.name,
            operation: req.operation,
            resource: req.type.plural,
            ...(req.subresource ? { subresource: req.subresource } : {}),
            rejected,
            durationMs: performance.now() - started,
          });
        try {
          const target = targetOf(store, webhook);
          response = (
            await callWebhook(target, JSON.stringify(review), (webhook.timeoutSeconds ?? 10) * 1000)
          )?.response;
          observed(response?.allowed === false);
          if (!response || typeof response.allowed !== 'boolean')
            throw new Error('failed to call webhook: the response has no "allowed" field');
        } catch (err) {
          observed(true);
          if (webhook.failurePolicy === 'Ignore') continue;
          throw internalError(`failed calling webhook "${webhook.name}": ${(err as Error).message}`);
        }
        for (const w of response.warnings ?? []) req.options.warnings?.push(String(w));
        if (!response.allowed) {
          const status = response.status ?? {};
          const deniedBy = `admission webhook "${webhook.name}" denied the request`;
          const message = status.message
            ? `${deniedBy}: ${status.message}`
            : status.reason
              ? `${deniedBy}: ${status.reason}`
              : `${deniedBy} without explanation`;
          const code = typeof status.code === 'number' && status.code >= 400 ? status.code : 400;
          throw new ApiError(code, status.reason ?? '', message, status.details);
        }
        if (req.phase === 'mutating' && response.patch && object) {
          if (response.patchType && response.patchType !== 'JSONPatch') {
            throw internalError(
              `failed calling webhook "${webhook.name}": unsupported patch type "${response.patchType}"`,
            );
          }
          let ops: unknown;
          try {
            ops = JSON.parse(Buffer.from(response.patch, 'base64').toString('utf8'));
          } catch {
            throw internalError(`failed calling webhook "${webhook.name}": the patch is not valid JSON`);
          }
          try {
            object = applyJsonPatch(object, ops) as KubeObject;
          } catch (err) {
            throw internalError(
              `JSON patch from webhook "${webhook.name}" could not be applied: ${(err as Error).message}`,
            );
          }
          object.apiVersion = apiVersionOf(kind);
          object.kind = kind.kind;
        }
      }
    }
    return object;
  };
}
