import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { generateProtoTypes } from '../scripts/generate-proto-types.ts';

const committed = join(dirname(fileURLToPath(import.meta.url)), '../src/generated');

function files(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else out.set(relative(dir, p), readFileSync(p, 'utf8'));
    }
  };
  walk(dir);
  return out;
}

describe('generated CRI types', () => {
  it('match proto/ (run `pnpm generate` after changing a .proto)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'proto-types-'));
    try {
      generateProtoTypes(dir);
      const fresh = files(dir);
      const current = files(committed);
      expect([...current.keys()].sort()).toEqual([...fresh.keys()].sort());
      for (const [path, text] of fresh) expect(current.get(path), `${path} is stale`).toBe(text);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
