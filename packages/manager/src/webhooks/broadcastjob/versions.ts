import type { BroadcastJob } from '@kruise/api';
import type { AdmissionRequest, AdmissionResponse } from '@kruise/runtime';
import { decodeObject } from '../decode.ts';

/** The Go struct a BroadcastJob of either version is decoded into (both have the same fields). */
export const BROADCASTJOB_GO_STRUCT = 'BroadcastJob';

/**
 * The request's object (`which`: the new one or the old one) as upstream reads it, at either
 * version (v1alpha1 converts to v1beta1 unchanged). A body of the wrong shape is answered 400.
 */
export function decodeBroadcastJob(
  request: AdmissionRequest,
  which: 'object' | 'oldObject',
): { obj: BroadcastJob } | { response: AdmissionResponse } {
  const version = request.resource?.version === 'v1alpha1' ? 'v1alpha1' : 'v1beta1';
  return decodeObject<BroadcastJob>({ ...request, object: request[which] }, 'BroadcastJob', version);
}
