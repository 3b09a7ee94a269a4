import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KubectlSession } from './kubectl-session.ts';

/** A small chart: a ConfigMap and a Deployment whose replicas and data come from values. */
function writeChart(dir: string): string {
  const chart = join(dir, 'chart');
  mkdirSync(join(chart, 'templates'), { recursive: true });
  writeFileSync(join(chart, 'Chart.yaml'), 'apiVersion: v2\nname: demo\nversion: 0.1.0\n');
  writeFileSync(join(chart, 'values.yaml'), 'replicas: 1\ngreeting: hello\n');
  writeFileSync(
    join(chart, 'templates', 'config.yaml'),
    'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-config\ndata:\n  greeting: {{ .Values.greeting | quote }}\n',
  );
  writeFileSync(
    join(chart, 'templates', 'deployment.yaml'),
    `apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ .Release.Name }}-web
spec:
  replicas: {{ .Values.replicas }}
  selector: {matchLabels: {app: {{ .Release.Name }}}}
  template:
    metadata: {labels: {app: {{ .Release.Name }}}}
    spec:
      containers:
      - name: web
        image: nginx:1.27
`,
  );
  return chart;
}

// Helm 4 applies server-side by default (field manager "helm").
describe('helm 4 (pinned binary)', () => {
  let s: KubectlSession;
  let chart: string;
  const helm = (...args: string[]) => s.helm(args);
  const getJson = async (...args: string[]) =>
    JSON.parse((await s.kubectl(['get', ...args, '-o', 'json', '--show-managed-fields'])).out);

  beforeAll(async () => {
    s = await KubectlSession.start();
    chart = writeChart(s.dir);
  });
  afterAll(() => s?.stop());

  it('installs a chart with server-side apply', async () => {
    const install = await helm('install', 'demo', chart, '--namespace', 'default');
    expect(install.err).toBe('');
    expect(install.out).toContain('STATUS: deployed');
    const cm = await getJson('configmap', 'demo-config');
    expect(cm.data).toEqual({ greeting: 'hello' });
    expect(cm.metadata.managedFields.map((e: any) => `${e.manager}/${e.operation}`)).toEqual(['helm/Apply']);
    expect(cm.metadata.labels['app.kubernetes.io/managed-by']).toBe('Helm');
    expect((await getJson('deployment', 'demo-web')).spec.replicas).toBe(1);
    expect((await helm('list', '-o', 'json')).out).toContain('"name":"demo"');
  });

  it('upgrades with new values, and keeps a field another manager took only when forced', async () => {
    const upgrade = await helm('upgrade', 'demo', chart, '--set', 'replicas=3', '--set', 'greeting=hi');
    expect(upgrade.err).toBe('');
    expect(upgrade.out).toContain('REVISION: 2');
    expect((await getJson('configmap', 'demo-config')).data).toEqual({ greeting: 'hi' });
    expect((await getJson('deployment', 'demo-web')).spec.replicas).toBe(3);
    // Someone else applies the replicas: helm's next upgrade conflicts on them.
    const other = await s.kubectl(
      ['apply', '--server-side', '--field-manager=ops', '--force-conflicts', '-f', '-'],
      'apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: demo-web}\nspec: {replicas: 5}\n',
    );
    expect(other.code).toBe(0);
    const refused = await helm('upgrade', 'demo', chart, '--set', 'replicas=2');
    expect(refused.code).not.toBe(0);
    expect(refused.err).toContain('conflict with "ops": .spec.replicas');
    const forced = await helm('upgrade', 'demo', chart, '--set', 'replicas=2', '--force-conflicts');
    expect(forced.err).toBe('');
    expect((await getJson('deployment', 'demo-web')).spec.replicas).toBe(2);
  });

  it('uninstalls the release and its objects', async () => {
    const uninstall = await helm('uninstall', 'demo', '--wait');
    expect(uninstall.out).toContain('release "demo" uninstalled');
    expect((await s.kubectl(['get', 'configmap', 'demo-config'])).err).toContain('not found');
    expect((await s.kubectl(['get', 'deployment', 'demo-web'])).err).toContain('not found');
    expect((await helm('list', '-o', 'json')).out.trim()).toBe('[]');
  });
});
