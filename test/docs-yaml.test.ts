import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ControlPlane } from '@kruise/control-plane';
import type { ManagerApp } from '@kruise/manager';
import { isAlreadyExists, type KubeClient, Resources } from '@kruise/runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { type KubectlResult, kubectlFor } from '../packages/control-plane/test/kubectl-run.ts';
import { runPod } from '../packages/manager/test/cloneset/harness.ts';
import { addNode, startEnv } from '../packages/manager/test/env.ts';
import { expectedError, type FencedBlock, fencedBlocks, relativeLinks } from './support/doc-blocks.ts';

/**
 * Every ```yaml block of the guides (README.md, docs/*.md) is applied, in document order, by the
 * pinned kubectl to one control plane with the Kruise CRDs and kruise-manager's webhooks — so a
 * guide whose YAML no longer fits the API, the webhooks' rules or the chart fails here. Each guide
 * applies into a namespace of its own (`docs-<guide>`), the current namespace of its kubeconfig
 * context, so its objects without a namespace land there. A test node (`kruise-local`, the local
 * stack's node name) is played as the kubelet: pods are bound to it and reported Running, so a
 * block that needs a running pod (a ContainerRecreateRequest) finds one.
 *
 * A block's info string picks the check (`yaml` alone: `kubectl apply -f -`; `yaml helm-values`:
 * `helm template` of charts/kruise with the block as a values file, which checks it against
 * values.schema.json, then a server dry run of what it renders; `yaml kustomization`: the block as
 * an overlay two directories below the checkout, `kubectl kustomize`, then a server dry run). A first
 * line `# expect-error: <fragment>` means the check must fail, saying that fragment.
 */

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const NODE = 'kruise-local';
/** The guides of the features, each of which must carry YAML this test applies. */
const FEATURE_GUIDES = [
  'docs/image-warm-up.md',
  'docs/container-recreate-request.md',
  'docs/cloneset.md',
  'docs/advanced-statefulset.md',
  'docs/advanced-daemonset.md',
  'docs/broadcastjob.md',
  'docs/container-launch-priority.md',
  'docs/sidecar-terminator.md',
  'docs/advancedcronjob.md',
  'docs/sidecarset-admission.md',
  'docs/kubectl-kruise.md',
  'docs/sidecarset-upgrade.md',
  'docs/install.md',
  'docs/sidecarset.md',
  'docs/deletion-protection.md',
  'docs/podunavailablebudget.md',
];
const guides = [
  'README.md',
  ...readdirSync(join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => `docs/${f}`),
];
/** How a block can be checked: the second word of its info string, `apply` when there is none. */
const MODES = ['apply', 'helm-values', 'kustomization'] as const;

/** The YAML blocks of a guide and how each is checked (an unknown mode is kept, to fail below). */
function yamlBlocks(guide: string): (FencedBlock & { mode: string })[] {
  return fencedBlocks(readFileSync(join(root, guide), 'utf8'))
    .filter((b) => b.info[0] === 'yaml' || b.info[0] === 'yml')
    .map((b) => ({ ...b, mode: b.info[1] ?? 'apply' }));
}
const guidesWithYaml = guides.filter((g) => yamlBlocks(g).length > 0);

let cp: ControlPlane;
let client: KubeClient;
let app: ManagerApp;
let tools: ReturnType<typeof kubectlFor>;

beforeAll(async () => {
  ({ cp, client, app } = await startEnv());
  tools = kubectlFor(cp);
  await addNode(client, NODE, { 'topology.kubernetes.io/zone': 'zone-a' });
});

afterAll(async () => {
  await app?.stop();
  await cp?.stop();
  tools?.dispose();
});

/** Creates a namespace unless it exists. */
async function ensureNamespace(name: string): Promise<void> {
  await client.create(Resources.Namespace, { metadata: { name } }).catch((err) => {
    if (!isAlreadyExists(err)) throw err;
  });
}

/** A pod, as the kubelet-playing helper takes it. */
type Pod = Parameters<typeof runPod>[1];

/** Plays the kubelet of the test node for every pod of `namespace` that is not running yet. */
async function runPods(namespace: string): Promise<void> {
  const { items } = await client.list(Resources.Pod, { namespace });
  for (const pod of items as unknown as Pod[])
    if (!pod.metadata?.deletionTimestamp && pod.status?.phase !== 'Running')
      await runPod(client, pod, NODE).catch(() => undefined); // deleted meanwhile
}

/** What a check printed, for the failure message. */
const output = (r: KubectlResult) => `exit ${r.code}\n${r.out}\n${r.err}`;

/** A scratch directory two levels below the checkout, as `overlays/<name>/` would be. */
function overlayDir(): string {
  mkdirSync(join(root, '.tools'), { recursive: true });
  return mkdtempSync(join(root, '.tools', 'docs-'));
}

/** Runs a block's check; the result of the step that decides. */
async function check(mode: string, text: string): Promise<KubectlResult> {
  if (mode === 'apply') return tools.kubectl(['apply', '-f', '-'], text);
  const dir = overlayDir();
  try {
    let rendered: KubectlResult;
    if (mode === 'helm-values') {
      writeFileSync(join(dir, 'values.yaml'), text);
      rendered = await tools.helm([
        'template',
        'kruise',
        join(root, 'charts/kruise'),
        '-f',
        join(dir, 'values.yaml'),
      ]);
    } else {
      writeFileSync(join(dir, 'kustomization.yaml'), text);
      rendered = await tools.kubectl(['kustomize', dir]);
    }
    if (rendered.code !== 0) return rendered;
    return await tools.kubectl(['apply', '--dry-run=server', '-f', '-'], rendered.out);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

it.each(FEATURE_GUIDES)('%s carries YAML a user can copy, checked below', (guide) => {
  expect(guidesWithYaml).toContain(guide);
});

describe.each(guidesWithYaml)('%s', (guide) => {
  const namespace = `docs-${basename(guide, '.md').toLowerCase()}`;
  const blocks = yamlBlocks(guide);

  beforeAll(async () => {
    await ensureNamespace(namespace);
    const r = await tools.kubectl(['config', 'set-context', '--current', `--namespace=${namespace}`]);
    expect(r.code, output(r)).toBe(0);
  });

  for (const block of blocks)
    it(`line ${block.line}: ${block.mode}`, async () => {
      expect(MODES, `unknown check "${block.info.join(' ')}"`).toContain(block.mode);
      for (const doc of parseAllDocuments(block.text)) {
        const ns = (doc.toJS() as { metadata?: { namespace?: string } } | null)?.metadata?.namespace;
        if (ns && block.mode === 'apply') await ensureNamespace(ns);
      }
      await runPods(namespace);
      const refusal = expectedError(block.text);
      let r = await check(block.mode, block.text);
      // A guide's next step may need what a controller does after the previous one (a SidecarSet
      // pinned to a revision the controller records): as a reader would, it is tried again for a
      // few seconds before it counts as failed.
      for (let i = 0; !refusal && r.code !== 0 && i < 20; i++) {
        await new Promise((done) => setTimeout(done, 500));
        r = await check(block.mode, block.text);
      }
      if (refusal) {
        expect(r.code, output(r)).not.toBe(0);
        expect(r.err).toContain(refusal);
      } else expect(r.code, output(r)).toBe(0);
    });
});

describe('links of the guides and ADRs', () => {
  const documents = [
    ...guides,
    ...readdirSync(join(root, 'docs/adr'))
      .filter((f) => f.endsWith('.md'))
      .map((f) => `docs/adr/${f}`),
  ];

  it.each(documents)('%s: every relative link resolves inside the repository', (doc) => {
    const text = readFileSync(join(root, doc), 'utf8');
    const broken = relativeLinks(text).filter((t) => {
      const target = resolve(root, dirname(doc), t);
      return !target.startsWith(`${root}/`) || !existsSync(target);
    });
    expect(broken).toEqual([]);
  });

  it.each(documents)('%s: cites no file outside the repository, and only ADRs that exist', (doc) => {
    const text = readFileSync(join(root, doc), 'utf8');
    expect(text).not.toMatch(/\.\.\/shared|reference\/|DESIGN\.md|-behaviou?r\.md/);
    const adrs = new Set(readdirSync(join(root, 'docs/adr')).map((f) => f.slice(0, 4)));
    const cited = [...text.matchAll(/\bADRs? +(\d{4})\b/g)].map((m) => m[1]!);
    expect(cited.filter((n) => !adrs.has(n))).toEqual([]);
  });

  it('the ADR index lists every ADR', () => {
    const index = readFileSync(join(root, 'docs/adr/README.md'), 'utf8');
    const files = readdirSync(join(root, 'docs/adr')).filter((f) => /^\d{4}-.*\.md$/.test(f));
    expect(files.filter((f) => !index.includes(`](${f})`))).toEqual([]);
  });
});
