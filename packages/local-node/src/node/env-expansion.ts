/**
 * Kubernetes' `$(VAR)` expansion (third_party/forked/golang/expansion): `$(NAME)` becomes the
 * variable's value when `lookup` knows it and stays as written otherwise; `$$` is an escaped `$`;
 * any other `$` is kept.
 */
export function expand(input: string, lookup: (name: string) => string | undefined): string {
  let out = '';
  let checkpoint = 0;
  for (let cursor = 0; cursor < input.length; cursor++) {
    if (input[cursor] !== '$' || cursor + 1 >= input.length) continue;
    out += input.slice(checkpoint, cursor);
    const rest = input.slice(cursor + 1);
    let advance = 1;
    if (rest[0] === '$') out += '$';
    else if (rest[0] === '(') {
      const close = rest.indexOf(')', 1);
      if (close < 0) out += '$(';
      else {
        const name = rest.slice(1, close);
        out += lookup(name) ?? `$(${name})`;
        advance = close + 1;
      }
    } else out += `$${rest[0]}`;
    cursor += advance;
    checkpoint = cursor + 1;
  }
  return out + input.slice(checkpoint);
}

/** kubelet's ExpandContainerCommandAndArgs: `$(VAR)` in command and args from the container's final env. */
export function expandCommandAndArgs(
  container: { command?: string[]; args?: string[] },
  env: Map<string, string>,
): { command: string[]; args: string[] } {
  const lookup = (name: string) => env.get(name);
  return {
    command: (container.command ?? []).map((c) => expand(c, lookup)),
    args: (container.args ?? []).map((a) => expand(a, lookup)),
  };
}
