import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensurePythonClient } from '../../../test/support/python-client.ts';
import type { ControlPlane } from '../src/index.ts';
import { startControlPlane } from './helpers.ts';

const script = join(dirname(fileURLToPath(import.meta.url)), 'python/findings.py');

// What a second, independent client found (the official Python client 22.6, from Debian).
describe('the official Python client against the control plane', () => {
  let cp: ControlPlane;
  let dir: string;
  let python: string;

  beforeAll(async () => {
    python = ensurePythonClient();
    // A short history, so that a paging snapshot can be compacted away.
    cp = await startControlPlane({ historyLimit: 50 });
    dir = mkdtempSync(join(tmpdir(), 'python-client-'));
    cp.writeKubeconfig(join(dir, 'kubeconfig'));
  }, 300_000);
  afterAll(async () => {
    await cp?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Runs one case of findings.py and returns what it printed. */
  const run = (name: string): Promise<any> =>
    new Promise((resolve, reject) => {
      execFile(python, [script, join(dir, 'kubeconfig'), name], { timeout: 60_000 }, (err, out, stderr) =>
        err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(JSON.parse(out)),
      );
    });

  it('watches with ?watch=True and allowWatchBookmarks=True: events, then the stream ends at its timeout', async () => {
    const { events, seconds } = await run('watch');
    expect(events).toContainEqual(['ADDED', 'watched']);
    expect(events.length).toBeLessThan(10);
    expect(seconds).toBeGreaterThanOrEqual(1.5);
  });

  it('refuses an owner reference without uid and two controller owners', async () => {
    const { noUid, twoControllers, stored } = await run('owner_references');
    expect(noUid.code).toBe(422);
    expect(noUid.body.message).toBe(
      'ConfigMap "orphan-ref" is invalid: metadata.ownerReferences.uid: Invalid value: "": uid must not be empty',
    );
    expect(twoControllers.code).toBe(422);
    expect(twoControllers.body.details.causes[0].field).toBe('metadata.ownerReferences');
    expect(twoControllers.body.message).toContain(
      'Only one reference can have Controller set to true. Found "true" in references for ConfigMap/a and ConfigMap/b',
    );
    expect(stored).toEqual([false, false]);
  });

  it('answers dryRun=Bogus and propagationPolicy=Bogus with 422 and changes nothing', async () => {
    const r = await run('bogus_options');
    expect(r.dryRun.code).toBe(422);
    expect(r.dryRun.body.message).toBe(
      'CreateOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: []string{"Bogus"}: supported values: "All"',
    );
    expect(r.dryRunStored).toBe(false);
    expect(r.propagation.code).toBe(422);
    expect(r.propagation.body.message).toBe(
      'DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Unsupported value: "Bogus": supported values: "Foreground", "Background", "Orphan", "nil"',
    );
    expect(r.keptExists).toBe(true);
  });

  it('answers a PUT that changes metadata.uid with 409', async () => {
    const { put } = await run('uid_change');
    expect(put.code).toBe(409);
    expect(put.body.message).toMatch(
      /^Operation cannot be fulfilled on configmaps "uid-cm": Precondition failed: UID in precondition: 00000000-0000-0000-0000-000000000000, UID in object meta: [0-9a-f-]{36}$/,
    );
  });

  it('replaces tolerations in a strategic merge patch and refuses an unknown $patch', async () => {
    const { tolerations, bogus } = await run('strategic_merge');
    expect(tolerations).toEqual(['b']);
    expect(bogus.code).toBe(500);
    expect(bogus.body.message).toBe('unknown patch type: Bogus in map: map[$patch:Bogus]');
  });

  it('serves later list pages from the first page snapshot, and expires the token once compacted', async () => {
    const r = await run('paging');
    expect(r.pages).toEqual([['page-0', 'page-1'], ['page-2', 'page-3'], ['page-4']]);
    expect(new Set(r.versions).size).toBe(1);
    expect(r.expired.code).toBe(410);
    expect(r.expired.body.reason).toBe('Expired');
    expect(r.expired.body.message).toMatch(
      /^The provided continue parameter is too old to display a consistent list result\. You can start a new list without the continue parameter, or use the continue token in this response/,
    );
    expect(r.resumed).toEqual(['page-2', 'page-4', 'page-9']);
  });

  it('answers a PUT to a collection with 405, a text/plain body with 415, and a ConfigMap DELETE with a Success Status', async () => {
    const r = await run('http');
    expect(r.putCollection.code).toBe(405);
    expect(r.putCollection.body.reason).toBe('MethodNotAllowed');
    expect(r.textPlain.code).toBe(415);
    expect(r.textPlain.body.message).toContain('the body of the request was in an unknown format');
    expect(r.delete).toMatchObject({
      kind: 'Status',
      apiVersion: 'v1',
      status: 'Success',
      details: { name: 'deleted', kind: 'configmaps' },
    });
    expect(r.delete.details.uid).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('refuses a ConfigMap whose data holds a number (400) and stores nothing', async () => {
    const { create, stored } = await run('configmap_data_number');
    expect(create.code).toBe(400);
    expect(create.body.message).toBe(
      'ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal number into Go struct field ConfigMap.data of type string',
    );
    expect(stored).toBe(false);
  });

  it('honours fieldValidation=Strict for a built-in kind', async () => {
    const { strict, stored } = await run('strict');
    expect(strict.code).toBe(400);
    expect(strict.body.message).toBe(
      'ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: unknown field "spec"',
    );
    expect(stored).toBe(false);
  });
});
