import { describe, expect, it } from 'vitest';
import { deploymentToCloneSet } from '../src/migrate/convert.ts';
import { type MigrationSide, migrationStep } from '../src/migrate/step.ts';

const side = (replicas: number, available = replicas, observed = true): MigrationSide => ({
  generation: 2,
  observedGeneration: observed ? 2 : 1,
  replicas,
  availableReplicas: available,
});

describe('migrationStep (kruise-tools’ migration, one move at a time)', () => {
  it('grows the CloneSet by maxSurge first, then shrinks the Deployment once the CloneSet is available', () => {
    expect(migrationStep(side(5), side(0), { srcMigrated: 0, dstMigrated: 0 }, 5, 2)).toEqual({
      action: 'scale-out',
      count: 2,
    });
    // the CloneSet's new pods are not available yet: wait
    expect(migrationStep(side(5), side(2, 0), { srcMigrated: 0, dstMigrated: 2 }, 5, 2)).toEqual({
      action: 'wait',
    });
    expect(migrationStep(side(5), side(2), { srcMigrated: 0, dstMigrated: 2 }, 5, 2)).toEqual({
      action: 'scale-in',
      count: 2,
    });
    // never past the total
    expect(migrationStep(side(1), side(4), { srcMigrated: 4, dstMigrated: 4 }, 5, 2)).toEqual({
      action: 'scale-out',
      count: 1,
    });
    expect(migrationStep(side(0), side(5), { srcMigrated: 5, dstMigrated: 5 }, 5, 2)).toEqual({
      action: 'done',
    });
  });

  it('waits until both controllers observed their last change', () => {
    expect(migrationStep(side(5, 5, false), side(0), { srcMigrated: 0, dstMigrated: 0 }, 5, 1)).toEqual({
      action: 'wait',
    });
    expect(migrationStep(side(5), side(1, 1, false), { srcMigrated: 0, dstMigrated: 1 }, 5, 1)).toEqual({
      action: 'wait',
    });
  });
});

describe('deploymentToCloneSet', () => {
  const deployment = {
    metadata: {
      name: 'web',
      namespace: 'apps',
      labels: { app: 'web' },
      annotations: {
        'deployment.kubernetes.io/revision': '3',
        'kubectl.kubernetes.io/last-applied-configuration': '{}',
        team: 'a',
      },
      uid: 'u1',
      resourceVersion: '9',
    },
    spec: {
      replicas: 4,
      selector: { matchLabels: { app: 'web' } },
      template: {
        metadata: { labels: { app: 'web' } },
        spec: { containers: [{ name: 'c', image: 'nginx' }] },
      },
      revisionHistoryLimit: 5,
      minReadySeconds: 7,
      paused: true,
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: 2 } },
    },
    status: { replicas: 4 },
  };

  it('carries the template, selector and rolling-update numbers over; 0 replicas unless copied', () => {
    expect(deploymentToCloneSet(deployment, 'web-cs', false)).toEqual({
      apiVersion: 'apps.kruise.io/v1alpha1',
      kind: 'CloneSet',
      metadata: { namespace: 'apps', name: 'web-cs', labels: { app: 'web' }, annotations: { team: 'a' } },
      spec: {
        replicas: 0,
        selector: deployment.spec.selector,
        template: deployment.spec.template,
        revisionHistoryLimit: 5,
        minReadySeconds: 7,
        updateStrategy: { type: 'ReCreate', paused: true, maxUnavailable: '25%', maxSurge: 2 },
      },
    });
    expect(deploymentToCloneSet(deployment, 'web-cs', true).spec.replicas).toBe(4);
  });
});
