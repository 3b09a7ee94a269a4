/** Splits a simple JSONPath (`.metadata.labels.a\.b/c`, `.status.list[0].x`) into steps. */
export function parseSimpleJsonPath(path: string): (string | number)[] {
  const steps: (string | number)[] = [];
  let current = '';
  const text = path.startsWith('{') && path.endsWith('}') ? path.slice(1, -1) : path;
  const flush = () => {
    if (current !== '') steps.push(current);
    current = '';
  };
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (ch === '\\' && i + 1 < text.length) current += text[++i];
    else if (ch === '.') flush();
    else if (ch === '[') {
      flush();
      const end = text.indexOf(']', i);
      const inner = text.slice(i + 1, end === -1 ? text.length : end);
      steps.push(/^\d+$/.test(inner) ? Number(inner) : inner.replace(/^['"]|['"]$/g, ''));
      i = end === -1 ? text.length : end;
    } else current += ch;
  }
  flush();
  return steps;
}

/** Reads the value at a simple JSONPath, or undefined. */
export function readJsonPath(obj: unknown, path: string): unknown {
  let node: any = obj;
  for (const step of parseSimpleJsonPath(path)) {
    if (node === null || node === undefined) return undefined;
    node = node[step];
  }
  return node;
}

/** Sets the value at a simple JSONPath, creating objects on the way. */
export function writeJsonPath(obj: Record<string, any>, path: string, value: unknown): void {
  const steps = parseSimpleJsonPath(path);
  let node: any = obj;
  for (const step of steps.slice(0, -1)) {
    if (node[step] === undefined || node[step] === null || typeof node[step] !== 'object') node[step] = {};
    node = node[step];
  }
  const last = steps[steps.length - 1];
  if (last !== undefined) node[last] = value;
}
