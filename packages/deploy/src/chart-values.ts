import { Document } from 'yaml';
import {
  CHART_VALUES,
  defaultValue,
  FEATURE_GATES_PATTERN,
  LOG_LEVELS,
  VALUE_DESCRIPTIONS,
  type ValuePath,
} from './values.ts';

const port = { type: 'integer', minimum: 1, maximum: 65535 };
const nonEmpty = { type: 'string', minLength: 1 };

/** Constraints beyond a value's type (bad values fail `helm install` with the value's path). */
const CONSTRAINTS: Record<ValuePath, object> = {
  'installation.namespace': { type: 'string', pattern: '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$', maxLength: 63 },
  featureGates: { type: 'string', pattern: FEATURE_GATES_PATTERN },
  'manager.log.level': { type: 'string', enum: LOG_LEVELS },
  'daemon.log.level': { type: 'string', enum: LOG_LEVELS },
  'manager.replicas': { type: 'integer', minimum: 0 },
  'manager.image.repository': nonEmpty,
  'manager.image.tag': nonEmpty,
  'daemon.image.repository': nonEmpty,
  'daemon.image.tag': nonEmpty,
  'manager.webhook.port': port,
  'manager.metrics.port': port,
  'manager.healthProbe.port': port,
  'daemon.port': port,
  'daemon.socketLocation': { type: 'string', pattern: '^/' },
  'webhookConfiguration.failurePolicy.pods': { type: 'string', enum: ['Fail', 'Ignore'] },
  'webhookConfiguration.timeoutSeconds': { type: 'integer', minimum: 1, maximum: 30 },
};

/** A leaf is a value the chart reads whole: a scalar, a list, or a mapping it places as a block. */
const isLeaf = (path: ValuePath) => path in VALUE_DESCRIPTIONS;

function schemaOf(value: unknown, path: ValuePath): object {
  const description = VALUE_DESCRIPTIONS[path];
  if (path && isLeaf(path)) {
    const type = Array.isArray(value) ? 'array' : typeof value === 'number' ? 'integer' : typeof value;
    return { description, type, ...CONSTRAINTS[path] };
  }
  const properties: Record<string, object> = {};
  for (const [key, v] of Object.entries(value as object))
    properties[key] = schemaOf(v, path ? `${path}.${key}` : key);
  return { type: 'object', properties };
}

/**
 * values.schema.json: each value's type and constraints, so `helm install|upgrade|lint` refuse a
 * bad value by its path. Keys the chart does not read (e.g. upstream-only ones) are allowed.
 * Characters outside ASCII (the Unicode spaces of the featureGates pattern) are written as JSON
 * `\uXXXX` escapes, so the file reads the same in any editor.
 */
export const renderValuesSchema = (): string =>
  `${JSON.stringify({ $schema: 'https://json-schema.org/draft-07/schema#', ...schemaOf(CHART_VALUES, '') }, null, 2)}\n`.replace(
    /[\u0080-\uffff]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );

/** values.yaml: the defaults, each commented with what it does. */
export function renderValuesYaml(header: string): string {
  const doc = new Document(CHART_VALUES);
  const comment = (node: unknown, path: string) => {
    const items = (node as { items?: { key: { value: string; commentBefore?: string }; value: unknown }[] })
      .items;
    if (!items || (path && isLeaf(path))) return;
    for (const pair of items) {
      const p = path ? `${path}.${pair.key.value}` : pair.key.value;
      if (VALUE_DESCRIPTIONS[p]) pair.key.commentBefore = ` ${VALUE_DESCRIPTIONS[p]}`;
      comment(pair.value, p);
    }
  };
  comment(doc.contents, '');
  return header + doc.toString({ lineWidth: 0 });
}

/** README.md's table of values. */
export const valuesTable = (): string =>
  [
    '| Value | Default | What it does |',
    '|---|---|---|',
    ...Object.entries(VALUE_DESCRIPTIONS).map(
      ([path, text]) =>
        `| \`${path}\` | \`${JSON.stringify(defaultValue(path))}\` | ${text.replace(/\|/g, '\\|')} |`,
    ),
  ].join('\n');
