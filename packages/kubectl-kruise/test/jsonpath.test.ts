import { describe, expect, it } from 'vitest';
import { renderJsonPath } from '../src/jsonpath.ts';

const obj = {
  metadata: { name: 'web', labels: { 'app.kubernetes.io/name': 'web' } },
  spec: { replicas: 2, containers: [{ name: 'a', ports: [80] }, { name: 'b' }] },
};

describe('renderJsonPath (kubectl -o jsonpath)', () => {
  it('prints fields, quoted keys, indexes and wildcards; strings raw, other values as JSON', () => {
    expect(renderJsonPath('{.metadata.name}:{.spec.replicas}', obj)).toBe('web:2');
    expect(renderJsonPath("{.metadata.labels['app.kubernetes.io/name']}", obj)).toBe('web');
    expect(renderJsonPath('{.spec.containers[-1].name} {.spec.containers[*].name}', obj)).toBe('b a b');
    expect(renderJsonPath('{.spec.containers[0].ports}{"\\t"}{.metadata.labels.*}', obj)).toBe('[80]\tweb');
    expect(renderJsonPath('[{.missing.field}]', obj)).toBe('[]');
  });

  it('refuses what it does not implement, and an unclosed action', () => {
    expect(() => renderJsonPath('{range .items[*]}{end}', obj)).toThrow('is not supported by kubectl-kruise');
    expect(() => renderJsonPath('{.spec.containers[?(@.name=="a")]}', obj)).toThrow('not supported');
    expect(() => renderJsonPath('{.metadata', obj)).toThrow(
      'error parsing jsonpath {.metadata, unclosed action',
    );
  });
});
