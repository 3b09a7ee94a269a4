import type { KubeObject } from '../../registry/types.ts';
import { COMPLETION_INDEX_KEY, JOB_TRACKING_FINALIZER } from './job-pods.ts';

const INDEX_ENV = {
  name: 'JOB_COMPLETION_INDEX',
  valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: `metadata.annotations['${COMPLETION_INDEX_KEY}']` } },
};

function withIndexEnv(containers: KubeObject[] | undefined): KubeObject[] | undefined {
  return containers?.map((c) =>
    (c.env ?? []).some((e: { name: string }) => e.name === INDEX_ENV.name)
      ? c
      : { ...c, env: [...(c.env ?? []), INDEX_ENV] },
  );
}

/**
 * The pod the Job controller creates from the Job's template: controlled by the Job, with the
 * tracking finalizer; for an Indexed Job (index ≥ 0) also the completion index annotation and
 * label, the JOB_COMPLETION_INDEX variable, hostname `<job>-<index>` and name `<job>-<index>-…`.
 */
export function podForJob(
  job: KubeObject,
  index: number,
  failureAnnotations: Record<string, string> = {},
): KubeObject {
  const template = structuredClone(job.spec?.template ?? {});
  const name = job.metadata?.name as string;
  const metadata: KubeObject = {
    ...template.metadata,
    generateName: index >= 0 ? `${name}-${index}-` : `${name}-`,
    namespace: job.metadata?.namespace,
    finalizers: [...new Set([...(template.metadata?.finalizers ?? []), JOB_TRACKING_FINALIZER])],
    ownerReferences: [
      {
        apiVersion: 'batch/v1',
        kind: 'Job',
        name,
        uid: job.metadata?.uid,
        controller: true,
        blockOwnerDeletion: true,
      },
    ],
  };
  delete metadata.name;
  const spec: KubeObject = { ...template.spec };
  if (index >= 0) {
    metadata.annotations = {
      ...metadata.annotations,
      [COMPLETION_INDEX_KEY]: String(index),
      ...failureAnnotations,
    };
    metadata.labels = { ...metadata.labels, [COMPLETION_INDEX_KEY]: String(index) };
    spec.hostname = `${name}-${index}`;
    spec.containers = withIndexEnv(spec.containers);
    if (spec.initContainers) spec.initContainers = withIndexEnv(spec.initContainers);
  }
  return { apiVersion: 'v1', kind: 'Pod', metadata, spec };
}
