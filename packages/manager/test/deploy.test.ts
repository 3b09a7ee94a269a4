import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { renderManagerFiles } from '../src/deploy/render.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '../../..');

describe('deploy/webhook', () => {
  it('matches the generator output (run `pnpm generate` after changing a webhook)', () => {
    for (const [path, text] of renderManagerFiles()) {
      expect(readFileSync(join(root, path), 'utf8'), `${path} is stale: run pnpm generate`).toBe(text);
    }
  });

  it('names upstream webhook configurations, paths and failure policy', () => {
    const [mutating, validating] = parseAllDocuments([...renderManagerFiles().values()][0]!).map((d) =>
      d.toJS(),
    );
    expect(mutating.metadata.name).toBe('kruise-mutating-webhook-configuration');
    expect(validating.metadata.name).toBe('kruise-validating-webhook-configuration');
    expect(validating.webhooks.map((w: any) => w.clientConfig.service.path)).toEqual([
      '/validate-apps-kruise-io-v1alpha1-imagepulljob',
      '/validate-apps-kruise-io-v1alpha1-imagelistpulljob',
      '/validate-apps-kruise-io-v1alpha1-nodeimage',
    ]);
    expect(new Set([...mutating.webhooks, ...validating.webhooks].map((w: any) => w.failurePolicy))).toEqual(
      new Set(['Fail']),
    );
  });
});
