import type { AdmissionHandler, WebhookServer } from '@kruise/runtime';
import type { FeatureGates } from '../features.ts';
import { mutateImageListPullJob } from './imagelistpulljob/mutating.ts';
import { validateImageListPullJob } from './imagelistpulljob/validating.ts';
import { mutateImagePullJob } from './imagepulljob/mutating.ts';
import { validateImagePullJob } from './imagepulljob/validating.ts';
import { mutateNodeImage } from './nodeimage/mutating.ts';
import { validateNodeImage } from './nodeimage/validating.ts';

/** One webhook: its path (upstream's ≤1.8 spelling, the one our configurations use) and handler. */
export interface WebhookRoute {
  kind: string;
  plural: string;
  mutating: boolean;
  path: string;
  handler: AdmissionHandler;
}

/** Every image webhook of kruise-manager. */
export function imageWebhookRoutes(gates: FeatureGates): WebhookRoute[] {
  return [
    {
      kind: 'ImagePullJob',
      plural: 'imagepulljobs',
      mutating: true,
      path: '/mutate-apps-kruise-io-v1alpha1-imagepulljob',
      handler: mutateImagePullJob,
    },
    {
      kind: 'ImagePullJob',
      plural: 'imagepulljobs',
      mutating: false,
      path: '/validate-apps-kruise-io-v1alpha1-imagepulljob',
      handler: validateImagePullJob(gates),
    },
    {
      kind: 'ImageListPullJob',
      plural: 'imagelistpulljobs',
      mutating: true,
      path: '/mutate-apps-kruise-io-v1alpha1-imagelistpulljob',
      handler: mutateImageListPullJob,
    },
    {
      kind: 'ImageListPullJob',
      plural: 'imagelistpulljobs',
      mutating: false,
      path: '/validate-apps-kruise-io-v1alpha1-imagelistpulljob',
      handler: validateImageListPullJob(gates),
    },
    {
      kind: 'NodeImage',
      plural: 'nodeimages',
      mutating: true,
      path: '/mutate-apps-kruise-io-v1alpha1-nodeimage',
      handler: mutateNodeImage,
    },
    {
      kind: 'NodeImage',
      plural: 'nodeimages',
      mutating: false,
      path: '/validate-apps-kruise-io-v1alpha1-nodeimage',
      handler: validateNodeImage(gates),
    },
  ];
}

/** Registers routes at their path and at upstream v1.9's path without `-v1alpha1-`. */
export function registerRoutes(server: WebhookServer, routes: WebhookRoute[]): void {
  for (const r of routes) {
    server.register(r.path, r.handler);
    server.register(r.path.replace('-v1alpha1-', '-'), r.handler);
  }
}
