import { type FeatureGates, parseFeatureGates } from '@kruise/api';
import type { AdmissionRequest, AdmissionResponse } from '@kruise/runtime';
import { expect } from 'vitest';
import { applyJsonPatch } from '../../../control-plane/src/patch/json-patch.ts';
import type { RevisionRecord, SidecarSetAdmissionLookups } from '../../src/webhooks/sidecarset/lookups.ts';
import { mutateSidecarSet } from '../../src/webhooks/sidecarset/mutating.ts';
import { validateSidecarSet } from '../../src/webhooks/sidecarset/validating.ts';
import { requestsFor } from '../admission-request.ts';

/** What the SidecarSet admission tests share: requests, objects, fixed lookups, the handlers. */

export type Obj = Record<string, any>;

export const request = (
  operation: AdmissionRequest['operation'],
  object: unknown,
  oldObject?: unknown,
  version = 'v1beta1',
): AdmissionRequest => ({
  ...requestsFor('SidecarSet', 'sidecarsets')(operation, object, oldObject, version),
  namespace: '',
});

/** A valid SidecarSet (`spec` merged over a selector and one container). */
export const sidecarSet = (
  name: string,
  spec: Obj = {},
  meta: Obj = {},
  apiVersion = 'apps.kruise.io/v1beta1',
): Obj => ({
  apiVersion,
  kind: 'SidecarSet',
  metadata: { name, ...meta },
  spec: {
    selector: { matchLabels: { app: 'web' } },
    containers: [{ name: 'sidecar', image: 'busybox:1.36' }],
    ...spec,
  },
});

/** The object after the defaulting webhook (its patch applied). */
export async function defaulted(req: AdmissionRequest): Promise<Obj> {
  const r = await mutateSidecarSet(req);
  expect(r.allowed).toBe(true);
  if (!r.patch) return req.object as Obj;
  return applyJsonPatch(req.object, JSON.parse(Buffer.from(r.patch, 'base64').toString())) as Obj;
}

/** Lookups answering from fixed data (the API's not-found words for a missing revision). */
export function fixedLookups(data: {
  sidecarSets?: Obj[];
  revisions?: RevisionRecord[];
  configuration?: Obj;
}): SidecarSetAdmissionLookups {
  const revisions = data.revisions ?? [];
  return {
    sidecarSets: async () => (data.sidecarSets ?? []) as never,
    revision: async (name) => {
      const r = revisions.find((x) => x.metadata?.name === name);
      if (!r) throw new Error(`controllerrevisions.apps "${name}" not found`);
      return r;
    },
    revisions: async (labels) =>
      revisions.filter((r) => Object.entries(labels).every(([k, v]) => r.metadata?.labels?.[k] === v)),
    configuration: async () => data.configuration as never,
  };
}

/** The validating handler with these lookups and gates. */
export function validator(
  lookups: SidecarSetAdmissionLookups = fixedLookups({}),
  gates: FeatureGates = parseFeatureGates(''),
): (req: AdmissionRequest) => Promise<AdmissionResponse> {
  const handler = validateSidecarSet(gates, lookups);
  return async (req) => handler(req);
}

/** The denial's code and message. */
export async function denial(
  validate: (req: AdmissionRequest) => Promise<AdmissionResponse>,
  req: AdmissionRequest,
): Promise<{ code: number | undefined; message: string | undefined }> {
  const r = await validate(req);
  expect(r.allowed, 'expected a denial').toBe(false);
  return { code: r.status?.code, message: r.status?.message };
}
