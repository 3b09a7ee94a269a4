import { GENERATED_HEADER } from '@kruise/api/schemas';
import { stringify } from 'yaml';
import { parseFeatureGates } from '../features.ts';
import { webhookConfigurations } from './webhook-configurations.ts';

/** Feature gates the shipped manifests enable (as upstream's Helm chart does). */
export const DEPLOY_FEATURE_GATES = 'ImagePullJobGate=true';

/** kruise-manager's files under deploy/: path → YAML. */
export function renderManagerFiles(): Map<string, string> {
  const configs = webhookConfigurations(parseFeatureGates(DEPLOY_FEATURE_GATES));
  const yaml = [configs.mutating, configs.validating]
    .map((o) => stringify(o, { lineWidth: 0 }))
    .join('---\n');
  return new Map([['deploy/webhook/webhook-configurations.yaml', GENERATED_HEADER + yaml]]);
}
