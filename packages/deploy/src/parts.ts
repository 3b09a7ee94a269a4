import {
  daemonConfigNamespace,
  installationNamespace,
  webhookConfigurationObjects,
  webhookObjects,
} from './objects.ts';
import { daemonRbac, managerRbac } from './rbac.ts';
import type { Condition, ValueSource } from './value-source.ts';
import { daemonSet, managerDeployment } from './workloads.ts';

/** One object of the install, and when it is installed (always, unless a condition is given). */
export interface InstallObject {
  object: object;
  condition?: Condition;
}

const always = (objects: object[]): InstallObject[] => objects.map((object) => ({ object }));

/**
 * The install's files (below deploy/ and below the chart's templates/), in apply order, each
 * with its objects built from `v`. The CRDs come first after the namespaces (packages/api).
 */
export const INSTALL_PARTS: [string, (v: ValueSource) => InstallObject[]][] = [
  [
    'namespaces.yaml',
    (v) => [
      { object: installationNamespace(v), condition: { value: 'installation.createNamespace' } },
      { object: daemonConfigNamespace() },
    ],
  ],
  ['rbac/manager.yaml', (v) => always(managerRbac(v))],
  ['rbac/daemon.yaml', (v) => always(daemonRbac(v))],
  ['webhook/service.yaml', (v) => always(webhookObjects(v))],
  ['webhook/webhook-configurations.yaml', (v) => always(webhookConfigurationObjects(v))],
  ['manager/deployment.yaml', (v) => always([managerDeployment(v)])],
  ['daemon/daemonset.yaml', (v) => [{ object: daemonSet(v), condition: { gateOff: 'KruiseDaemon' } }]],
];
