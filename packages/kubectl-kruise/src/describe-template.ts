import type { PodTemplate } from './template-patch.ts';

type Json = Record<string, any>;

/** `key=value` lines the way kubectl's describe prints a map (sorted; `<none>` when empty). */
function multiline(out: string[], title: string, map: Json | undefined, indent: string): void {
  const keys = Object.keys(map ?? {}).sort();
  if (!keys.length) {
    out.push(`${title}:\t<none>`);
    return;
  }
  keys.forEach((k, i) => {
    out.push(`${i === 0 ? `${title}:\t` : `${indent}\t`}${k}=${map?.[k]}`);
  });
}

function describeResources(out: string[], label: string, list: Json | undefined): void {
  const names = Object.keys(list ?? {}).sort();
  if (!names.length) return;
  out.push(`    ${label}:`);
  for (const n of names) out.push(`      ${n}:\t${list?.[n]}`);
}

function describeEnv(out: string[], env: Json[] | undefined): void {
  if (!env?.length) {
    out.push('    Environment:\t<none>');
    return;
  }
  out.push('    Environment:');
  for (const e of env) {
    const from = e.valueFrom ?? {};
    if (from.fieldRef)
      out.push(`      ${e.name}:\t (${from.fieldRef.apiVersion ?? 'v1'}:${from.fieldRef.fieldPath})`);
    else if (from.resourceFieldRef) out.push(`      ${e.name}:\t${from.resourceFieldRef.resource}`);
    else if (from.configMapKeyRef)
      out.push(
        `      ${e.name}:\t<set to the key '${from.configMapKeyRef.key}' of config map '${from.configMapKeyRef.name}'>`,
      );
    else if (from.secretKeyRef)
      out.push(
        `      ${e.name}:\t<set to the key '${from.secretKeyRef.key}' in secret '${from.secretKeyRef.name}'>`,
      );
    else out.push(`      ${e.name}:\t${e.value ?? ''}`);
  }
}

function describeContainers(out: string[], title: string, containers: Json[]): void {
  out.push(`  ${title}:`);
  for (const c of containers) {
    out.push(`   ${c.name}:`);
    out.push(`    Image:\t${c.image ?? ''}`);
    const ports: Json[] = c.ports ?? [];
    out.push(
      `    Port:\t${ports.length ? ports.map((p) => `${p.containerPort}/${p.protocol ?? 'TCP'}`).join(', ') : '<none>'}`,
    );
    out.push(
      `    Host Port:\t${ports.length ? ports.map((p) => `${p.hostPort ?? 0}/${p.protocol ?? 'TCP'}`).join(', ') : '<none>'}`,
    );
    if (c.command?.length) {
      out.push('    Command:');
      for (const part of c.command) out.push(`      ${part}`);
    }
    if (c.args?.length) {
      out.push('    Args:');
      for (const part of c.args) out.push(`      ${part}`);
    }
    describeResources(out, 'Limits', c.resources?.limits);
    describeResources(out, 'Requests', c.resources?.requests);
    describeEnv(out, c.env);
    const mounts: Json[] = c.volumeMounts ?? [];
    if (!mounts.length) out.push('    Mounts:\t<none>');
    else {
      out.push('    Mounts:');
      for (const m of mounts) out.push(`      ${m.mountPath} from ${m.name} (${m.readOnly ? 'ro' : 'rw'})`);
    }
  }
}

/**
 * A pod template as kubectl's `DescribePodTemplate` prints it (what `rollout history --revision`
 * and `rollout undo --dry-run` show): labels, annotations, service account, containers with image,
 * ports, command, resources, environment and mounts, volumes, node selectors and tolerations.
 */
export function describePodTemplate(template: PodTemplate | undefined): string {
  const out: string[] = ['Pod Template:'];
  if (!template) return 'Pod Template:\n  <unset>';
  multiline(out, '  Labels', template.metadata?.labels, '  ');
  if (Object.keys(template.metadata?.annotations ?? {}).length)
    multiline(out, '  Annotations', template.metadata?.annotations, '  ');
  const spec = template.spec ?? {};
  if (spec.serviceAccountName) out.push(`  Service Account:\t${spec.serviceAccountName}`);
  if (spec.initContainers?.length) describeContainers(out, 'Init Containers', spec.initContainers);
  describeContainers(out, 'Containers', spec.containers ?? []);
  const volumes: Json[] = spec.volumes ?? [];
  if (!volumes.length) out.push('  Volumes:\t<none>');
  else {
    out.push('  Volumes:');
    for (const v of volumes) {
      const type = Object.keys(v).find((k) => k !== 'name') ?? 'unknown';
      out.push(`   ${v.name}:`, `    Type:\t${type}`);
    }
  }
  if (spec.priorityClassName) out.push(`  Priority Class Name:\t${spec.priorityClassName}`);
  multiline(out, '  Node-Selectors', spec.nodeSelector, '  ');
  const tolerations: Json[] = spec.tolerations ?? [];
  out.push(
    `  Tolerations:\t${tolerations.length ? tolerations.map((t) => `${t.key ?? ''}${t.value ? `=${t.value}` : ''}:${t.effect ?? ''}`).join(', ') : '<none>'}`,
  );
  return `${out.join('\n')}\n`;
}
