/** What a test's Widget CRD varies: its group, labels and the subresources of its one version. */
export interface WidgetCrdOptions {
  group?: string;
  labels?: Record<string, string>;
  subresources?: Record<string, unknown>;
}

/**
 * A CustomResourceDefinition of a namespaced kind `Widget` (plural `widgets`) served and stored at
 * v1 with a schema that keeps every field: a custom resource for tests that need one.
 */
export function widgetCrd(options: WidgetCrdOptions = {}) {
  const group = options.group ?? 'example.com';
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `widgets.${group}`, ...(options.labels ? { labels: options.labels } : {}) },
    spec: {
      group,
      scope: 'Namespaced',
      names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
          ...(options.subresources ? { subresources: options.subresources } : {}),
        },
      ],
    },
  };
}
