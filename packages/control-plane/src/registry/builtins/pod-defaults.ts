import type { KubeObject } from '../types.ts';

/**
 * kube-apiserver's defaults of a pod spec (SetDefaults_PodSpec and its containers), shared by
 * pods and by the pod templates of workloads.
 */
export function defaultPodSpec(spec: KubeObject): void {
  spec.restartPolicy ??= 'Always';
  spec.terminationGracePeriodSeconds ??= 30;
  spec.dnsPolicy ??= 'ClusterFirst';
  spec.schedulerName ??= 'default-scheduler';
  spec.securityContext ??= {};
  spec.enableServiceLinks ??= true;
  for (const c of [...(spec.initContainers ?? []), ...(spec.containers ?? [])]) {
    if (!c || typeof c !== 'object') continue;
    c.terminationMessagePath ??= '/dev/termination-log';
    c.terminationMessagePolicy ??= 'File';
    const image = String(c.image ?? '');
    const tag = image.includes('@') ? 'digest' : (image.split('/').pop() ?? '').split(':')[1];
    c.imagePullPolicy ??= !tag || tag === 'latest' ? 'Always' : 'IfNotPresent';
    c.resources ??= {};
    for (const p of c.ports ?? []) if (p && typeof p === 'object') p.protocol ??= 'TCP';
  }
}
