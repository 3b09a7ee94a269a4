import { GENERATED_HEADER, renderCrdFiles } from '@kruise/api/schemas';
import { stringify } from 'yaml';
import { INSTALL_PARTS } from './parts.ts';
import { DEFAULTS, holds } from './value-source.ts';
import { defaultValue } from './values.ts';

/** The header of every generated install file. */
export const HEADER = GENERATED_HEADER.replace('packages/api', 'packages/deploy and packages/api');

/** YAML documents of objects, separated by `---`. */
export const toYaml = (objects: object[]) => objects.map((o) => stringify(o, { lineWidth: 0 })).join('---\n');

/**
 * Every file of the cluster install under deploy/: path → text, from the chart's default values.
 * The CRDs come from packages/api; `deploy/kruise.yaml` holds everything in apply order for
 * `kubectl apply -f`.
 */
export function renderDeployFiles(): Map<string, string> {
  const crds = renderCrdFiles();
  const parts = INSTALL_PARTS.map(([file, build]): [string, object[]] => [
    `deploy/${file}`,
    build(DEFAULTS)
      .filter((o) => !o.condition || holds(o.condition, defaultValue))
      .map((o) => o.object),
  ]);
  const files = new Map<string, string>();
  for (const [path, objects] of parts) files.set(path, HEADER + toYaml(objects));
  const order = [parts[0]![0], ...crds.keys(), ...parts.slice(1).map(([p]) => p)];
  files.set(
    'deploy/kustomization.yaml',
    HEADER +
      stringify({
        apiVersion: 'kustomize.config.k8s.io/v1beta1',
        kind: 'Kustomization',
        resources: order.map((p) => p.replace(/^deploy\//, '')),
      }),
  );
  const all = [
    toYaml(parts[0]![1]),
    ...[...crds.values()].map((t) => t.replace(GENERATED_HEADER, '')),
    ...parts.slice(1).map(([, objects]) => toYaml(objects)),
  ];
  files.set('deploy/kruise.yaml', HEADER + all.map((t) => t.trimEnd()).join('\n---\n') + '\n');
  return files;
}
