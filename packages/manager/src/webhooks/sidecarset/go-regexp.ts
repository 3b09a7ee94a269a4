/**
 * A regular expression compiled as Go's regexp.Compile would accept it: undefined when it
 * compiles, otherwise Go's error text (`error parsing regexp: missing closing ]: `[a``) for the
 * common mistakes, and a generic one for the rest. JavaScript's syntax stands in for RE2's.
 */
export function goRegexpError(pattern: string): string | undefined {
  try {
    new RegExp(pattern);
    return undefined;
  } catch (err) {
    const m = (err as Error).message;
    const at = (what: string, from: number) => `error parsing regexp: ${what}: \`${pattern.slice(from)}\``;
    if (/Unterminated character class/.test(m)) return at('missing closing ]', pattern.lastIndexOf('['));
    if (/Unterminated group/.test(m)) return at('missing closing )', 0);
    if (/Unmatched '\)'/.test(m)) return at('unexpected )', 0);
    if (/Nothing to repeat/.test(m)) {
      const i = pattern.search(/(^|[(|])[*+?]/);
      return at(
        'missing argument to repetition operator',
        i < 0 ? 0 : i + (i === 0 && /^[*+?]/.test(pattern) ? 0 : 1),
      );
    }
    if (/\\ at end of pattern/.test(m))
      return 'error parsing regexp: trailing backslash at end of expression: ``';
    return `error parsing regexp: invalid syntax: \`${pattern}\``;
  }
}

/** The pattern as a RegExp (Go's MatchString finds a match anywhere). */
export const goRegexp = (pattern: string): RegExp => new RegExp(pattern);
