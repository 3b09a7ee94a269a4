/** Arguments split as kubectl's `GetResourcesAndPairs`: resources first, then `KEY=VALUE` / `KEY-` pairs. */
export function resourcesAndPairs(
  args: readonly string[],
  pairType: string,
): { resources: string[]; pairs: string[] } {
  const resources: string[] = [];
  const pairs: string[] = [];
  for (const arg of args) {
    const isPair = (arg.includes('=') && !arg.startsWith('=')) || (arg.endsWith('-') && arg !== '-');
    if (isPair) pairs.push(arg);
    else if (pairs.length)
      throw new Error(`all resources must be specified before ${pairType} changes: ${arg}`);
    else resources.push(arg);
  }
  return { resources, pairs };
}

/** Pairs parsed as kubectl's `ParsePairs`: `KEY=VALUE` to set, `KEY-` to remove (when supported). */
export function parsePairs(
  pairs: readonly string[],
  pairType: string,
  supportRemove: boolean,
): { set: Map<string, string>; remove: string[] } {
  const set = new Map<string, string>();
  const remove: string[] = [];
  const invalid: string[] = [];
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    if (eq > 0) set.set(pair.slice(0, eq), pair.slice(eq + 1));
    else if (supportRemove && pair.endsWith('-') && pair !== '-') remove.push(pair.slice(0, -1));
    else invalid.push(pair);
  }
  if (invalid.length) throw new Error(`invalid ${pairType} format: ${invalid.join(', ')}`);
  return { set, remove };
}
