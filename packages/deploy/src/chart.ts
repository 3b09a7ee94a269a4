import { renderCrdFiles } from '@kruise/api/schemas';
import { parse, stringify } from 'yaml';
import { ChartSource, conditional, templateCondition } from './chart-template.ts';
import { renderValuesSchema, renderValuesYaml, valuesTable } from './chart-values.ts';
import { NAMES } from './names.ts';
import { INSTALL_PARTS, type InstallObject } from './parts.ts';
import { HEADER } from './render.ts';

const DIR = 'charts/kruise';
const VERSION = NAMES.managerImage.split(':')[1]!;

/** Helm's annotation that keeps an object on `helm uninstall` (the CRDs: deleting them deletes every CloneSet). */
export const KEEP = { 'helm.sh/resource-policy': 'keep' };

/**
 * A CRD's template: behind crds.managed, kept on uninstall while crds.keepOnUninstall; a conversion
 * webhook's Service in installation.namespace.
 */
function crdTemplate(text: string): string {
  const crd = parse(text) as {
    metadata: { annotations?: Record<string, string> };
    spec: { conversion?: { webhook?: { clientConfig?: { service?: { namespace: string } } } } };
  };
  if (crd.metadata.annotations) throw new Error('a CRD with annotations of its own: keep them out of the if');
  crd.metadata.annotations = KEEP;
  const source = new ChartSource();
  const service = crd.spec.conversion?.webhook?.clientConfig?.service;
  if (service) service.namespace = source.scalar('installation.namespace');
  const keep = stringify({ annotations: KEEP }).replace(/^/gm, '  ').trimEnd();
  const yaml = source.template(stringify(crd, { lineWidth: 0 }));
  if (!yaml.includes(`\n${keep}\n`))
    throw new Error('the keep annotation is not where the template expects it');
  const guarded = yaml.replace(
    `\n${keep}\n`,
    `\n{{- if ${templateCondition({ value: 'crds.keepOnUninstall' })} }}\n${keep}\n{{- end }}\n`,
  );
  return conditional({ value: 'crds.managed' }, HEADER + guarded);
}

const chartYaml = () =>
  HEADER +
  stringify({
    apiVersion: 'v2',
    name: 'kruise',
    description: 'Kruise for Node.js: OpenKruise-compatible kruise-manager and kruise-daemon',
    type: 'application',
    version: VERSION,
    appVersion: VERSION,
    keywords: ['openkruise', 'kubernetes', 'kruise', 'cloneset', 'workload'],
    home: 'https://openkruise.io',
  });

const NOTES = `Kruise for Node.js is installed in {{ .Values.installation.namespace }}.
kruise-manager ({{ .Values.manager.replicas }} replicas) serves the webhooks once it is ready:
  kubectl -n {{ .Values.installation.namespace }} rollout status deployment/kruise-controller-manager
The CRDs stay when the release is uninstalled (helm.sh/resource-policy: keep).
`;

const readme = () => `<!-- ${HEADER.slice(2).trim()} -->
# kruise

The Helm chart of Kruise for Node.js, rendered by \`pnpm generate\` from \`packages/deploy\` (the
same source as \`deploy/\`): with default values it installs the objects of \`deploy/kruise.yaml\`.
Value names and defaults are upstream's (openkruise/charts, kruise 1.9) where they apply
(docs/adr/0036-one-install-source-two-outputs.md).

\`\`\`sh
helm install kruise charts/kruise
helm upgrade kruise charts/kruise --set featureGates='ImagePullJobGate=true\\,CloneSetShortHash=true'
helm uninstall kruise    # keeps the CRDs (and so every CloneSet and its pods)
\`\`\`

${valuesTable()}
`;

/** A template file: the install part's objects, each behind its condition. */
function templateFile(objects: InstallObject[], source: ChartSource) {
  return (
    HEADER +
    objects
      .map(({ object, condition }) =>
        conditional(condition, `${source.template(stringify(object, { lineWidth: 0 }).trimEnd())}\n`),
      )
      .join('---\n')
  );
}

/**
 * Every file of the Helm chart under charts/kruise: path → text. Built by the same builders as
 * deploy/ (parts.ts), each configurable value a template expression; the CRDs are templates too
 * (upstream's `crds.managed`), annotated to survive `helm uninstall` (crds.keepOnUninstall).
 */
export function renderChartFiles(): Map<string, string> {
  const files = new Map<string, string>([
    [`${DIR}/Chart.yaml`, chartYaml()],
    [`${DIR}/values.yaml`, renderValuesYaml(HEADER)],
    [`${DIR}/values.schema.json`, renderValuesSchema()],
    [`${DIR}/README.md`, readme()],
    [`${DIR}/templates/NOTES.txt`, NOTES],
  ]);
  for (const [file, build] of INSTALL_PARTS) {
    const source = new ChartSource();
    files.set(`${DIR}/templates/${file}`, templateFile(build(source), source));
  }
  for (const [path, text] of renderCrdFiles())
    files.set(path.replace(/^deploy\//, `${DIR}/templates/`), crdTemplate(text));
  return files;
}
