import type { ControlPlane } from '@kruise/control-plane';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { type KubectlSession, kubectlSession } from '../../../test/support/kubectl.ts';
import { widgetCrd } from '../../../test/support/widget-crd.ts';
import type { ManagerApp } from '../src/index.ts';
import { startEnv } from './env.ts';

/**
 * Deletion protection as a user meets it: kubectl against the control plane with kruise-manager's
 * webhook configurations; the deletion is refused with upstream's message, and goes once the
 * label (or the dependants) is gone.
 */
const LABEL = 'policy.kruise.io/delete-protection';
const FORBIDDEN = `forbidden by ResourcesProtectionDeletion for ${LABEL}`;

describe('deletion protection through kubectl (control plane, kruise-manager)', () => {
  let cp: ControlPlane;
  let app: ManagerApp;
  let session: KubectlSession;
  const ok = (args: string[], input?: string) => session.ok(args, input);
  const refused = async (args: string[], hook: string, message: string) => {
    expect(await session.refusal(args)).toBe(
      `Error from server: admission webhook "${hook}" denied the request: ${message}`,
    );
  };

  beforeAll(async () => {
    ({ cp, app } = await startEnv([
      '--feature-gates=ImagePullJobGate=true,ResourcesDeletionProtection=true,DeletionProtectionForCRDCascadingGate=true',
    ]));
    session = kubectlSession(cp, 'delprot-');
  });
  afterAll(async () => {
    await app?.stop();
    await cp?.stop();
    session?.dispose();
  });

  it('refuses deleting a Deployment labelled Always until the label goes', async () => {
    await ok(['create', 'deployment', 'web', '--image=nginx:1.25', '-n', 'default']);
    await ok(['label', 'deployment', 'web', `${LABEL}=Always`, '-n', 'default']);
    await refused(
      ['delete', 'deployment', 'web', '-n', 'default'],
      'vbuiltindeployment.kb.io',
      `${FORBIDDEN}=Always`,
    );
    expect(await ok(['get', 'deployment', 'web', '-n', 'default', '-o', 'name'])).toBe(
      'deployment.apps/web\n',
    );
    await ok(['label', 'deployment', 'web', `${LABEL}-`, '-n', 'default']);
    await ok(['delete', 'deployment', 'web', '-n', 'default']);
  });

  it('refuses deleting a Cascading Deployment while it has replicas', async () => {
    await ok(['create', 'deployment', 'scaled', '--image=nginx:1.25', '--replicas=2', '-n', 'default']);
    await ok(['label', 'deployment', 'scaled', `${LABEL}=Cascading`, '-n', 'default']);
    await refused(
      ['delete', 'deployment', 'scaled', '-n', 'default'],
      'vbuiltindeployment.kb.io',
      `${FORBIDDEN}=Cascading and replicas 2>0`,
    );
    await ok(['scale', 'deployment', 'scaled', '--replicas=0', '-n', 'default']);
    await ok(['delete', 'deployment', 'scaled', '-n', 'default']);
  });

  it('refuses deleting a Cascading namespace while it has an active pod', async () => {
    await ok(['create', 'namespace', 'team']);
    await ok(['label', 'namespace', 'team', `${LABEL}=Cascading`]);
    await ok(['run', 'solo', '--image=nginx:1.25', '-n', 'team']);
    await refused(
      ['delete', 'namespace', 'team'],
      'vnamespace.kb.io',
      `${FORBIDDEN}=Cascading and active pods 1>0`,
    );
    await ok(['delete', 'pod', 'solo', '-n', 'team', '--grace-period=0', '--force']);
    await ok(['delete', 'namespace', 'team', '--wait=false']);
  });

  it('refuses deleting a Service or an Ingress labelled Always until the label goes', async () => {
    await ok(['create', 'service', 'clusterip', 'front', '--tcp=80:80', '-n', 'default']);
    await ok(['label', 'service', 'front', `${LABEL}=Always`, '-n', 'default']);
    await refused(['delete', 'service', 'front', '-n', 'default'], 'vservice.kb.io', `${FORBIDDEN}=Always`);
    await ok(['label', 'service', 'front', `${LABEL}-`, '-n', 'default']);
    await ok(['delete', 'service', 'front', '-n', 'default']);
    await ok(['create', 'ingress', 'entry', '--rule=example.com/=front:80', '-n', 'default']);
    await ok(['label', 'ingress', 'entry', `${LABEL}=Always`, '-n', 'default']);
    await refused(['delete', 'ingress', 'entry', '-n', 'default'], 'vingress.kb.io', `${FORBIDDEN}=Always`);
    await ok(['label', 'ingress', 'entry', `${LABEL}-`, '-n', 'default']);
    await ok(['delete', 'ingress', 'entry', '-n', 'default']);
  });

  it('refuses deleting a Cascading CRD while it has a custom resource', async () => {
    const crd = widgetCrd({ labels: { [LABEL]: 'Cascading' } });
    await ok(['create', '-f', '-'], stringify(crd));
    await ok(['wait', '--for=condition=Established', 'crd/widgets.example.com', '--timeout=30s']);
    const widget = {
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      metadata: { name: 'w1', namespace: 'default' },
    };
    await ok(['create', '-f', '-'], stringify(widget));
    await refused(
      ['delete', 'crd', 'widgets.example.com'],
      'vcustomresourcedefinition.kb.io',
      `${FORBIDDEN}=Cascading and active CRs 1>0`,
    );
    await ok(['delete', 'widgets.example.com', 'w1', '-n', 'default']);
    await ok(['delete', 'crd', 'widgets.example.com', '--wait=false']);
  });
});
