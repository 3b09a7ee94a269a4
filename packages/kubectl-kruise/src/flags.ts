import { formatGoDurationMs, parseGoBool, parseGoDurationMs } from '@kruise/kube-compat';
import { UsageError } from './errors.ts';

/** One command-line flag, declared as kubectl's pflag declares it. */
export interface FlagSpec {
  /** Long name, without the dashes. */
  name: string;
  /** One-letter shorthand, without the dash. */
  short?: string;
  type: 'string' | 'bool' | 'int' | 'strings' | 'duration';
  /** The value when the flag is absent (the type's zero value when not given). */
  default?: string | boolean | number | string[];
  /** Help text. */
  usage: string;
  /** Whether the command refuses to run without it (cobra's "required flag(s) ... not set"). */
  required?: boolean;
  /** For a string flag given without `=value` (kubectl's `--dry-run` means `--dry-run=unchanged`). */
  noValue?: string;
}

/** Parsed flag values by long name. */
export type FlagValues = Record<string, string | boolean | number | string[] | undefined>;

/** The outcome of parsing: the positional arguments and the flags. */
export interface ParsedArgs {
  args: string[];
  flags: FlagValues;
  /** Long names of the flags given on the command line. */
  given: Set<string>;
}

const zeroOf = (spec: FlagSpec) =>
  spec.default ??
  (spec.type === 'bool'
    ? false
    : spec.type === 'int' || spec.type === 'duration'
      ? 0
      : spec.type === 'strings'
        ? []
        : '');

/** Parses one value as its flag's type, with pflag's error words. */
function convert(spec: FlagSpec, raw: string, values: FlagValues): string | boolean | number | string[] {
  const invalid = (detail: string) =>
    new UsageError(`invalid argument "${raw}" for "${flagLabel(spec)}" flag: ${detail}`);
  /** The value `read` gives, or pflag's error with the reason `read` threw. */
  const read = <T>(parse: (text: string) => T) => {
    try {
      return parse(raw);
    } catch (err) {
      throw invalid((err as Error).message);
    }
  };
  switch (spec.type) {
    case 'bool':
      return read(parseGoBool);
    case 'int':
      if (!/^[+-]?\d+$/.test(raw)) throw invalid(`strconv.ParseInt: parsing "${raw}": invalid syntax`);
      return Number(raw);
    case 'duration':
      return read(parseGoDurationMs);
    case 'strings': {
      const before = values[spec.name];
      const list = Array.isArray(before) ? before : [];
      return [...list, ...raw.split(',')];
    }
    default:
      return raw;
  }
}

const flagLabel = (spec: FlagSpec) => (spec.short ? `-${spec.short}, --${spec.name}` : `--${spec.name}`);

/**
 * Parses arguments as kubectl's pflag does: `--name=value`, `--name value`, `-n value`, `-nvalue`,
 * boolean flags without a value, `--` ends the flags, flags anywhere among the arguments. Errors carry
 * pflag's words (`unknown flag: --foo`, `flag needs an argument: --replicas`, ...).
 */
export function parseArgs(argv: readonly string[], specs: readonly FlagSpec[]): ParsedArgs {
  const byName = new Map(specs.map((s) => [s.name, s]));
  const byShort = new Map(specs.filter((s) => s.short).map((s) => [s.short as string, s]));
  const flags: FlagValues = {};
  for (const s of specs) flags[s.name] = zeroOf(s);
  const given = new Set<string>();
  const args: string[] = [];
  const set = (spec: FlagSpec, raw: string) => {
    flags[spec.name] = convert(spec, raw, given.has(spec.name) ? flags : {});
    given.add(spec.name);
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === '--') {
      args.push(...argv.slice(i + 1));
      break;
    }
    if (arg.startsWith('--') && arg.length > 2) {
      const eq = arg.indexOf('=');
      const name = eq < 0 ? arg.slice(2) : arg.slice(2, eq);
      const spec = byName.get(name);
      if (!spec) throw new UsageError(`unknown flag: --${name}`);
      if (eq >= 0) set(spec, arg.slice(eq + 1));
      else if (spec.type === 'bool') set(spec, 'true');
      else if (spec.noValue !== undefined) set(spec, spec.noValue);
      else if (i + 1 < argv.length) set(spec, argv[++i] as string);
      else throw new UsageError(`flag needs an argument: --${name}`);
      continue;
    }
    if (arg.startsWith('-') && arg.length > 1) {
      // A run of shorthands: booleans may be grouped (-ab); a value-taking one takes the rest.
      for (let j = 1; j < arg.length; j++) {
        const c = arg[j] as string;
        const spec = byShort.get(c);
        if (!spec) throw new UsageError(`unknown shorthand flag: '${c}' in ${arg}`);
        const rest = arg.slice(j + 1);
        if (spec.type === 'bool') {
          if (rest.startsWith('=')) {
            set(spec, rest.slice(1));
            break;
          }
          set(spec, 'true');
          continue;
        }
        if (rest) set(spec, rest.startsWith('=') ? rest.slice(1) : rest);
        else if (i + 1 < argv.length) set(spec, argv[++i] as string);
        else throw new UsageError(`flag needs an argument: '${c}' in ${arg}`);
        break;
      }
      continue;
    }
    args.push(arg);
  }
  return { args, flags, given };
}

/** Cobra's check of required flags, run after parsing and help. */
export function checkRequired(parsed: ParsedArgs, specs: readonly FlagSpec[]): void {
  const missing = specs.filter((s) => s.required && !parsed.given.has(s.name)).map((s) => `"${s.name}"`);
  if (missing.length) throw new Error(`required flag(s) ${missing.join(', ')} not set`);
}

/** The flag table of a help text, one flag a line. */
export function describeFlags(specs: readonly FlagSpec[]): string {
  return specs
    .map((s) => {
      const head = s.short ? `-${s.short}, --${s.name}` : `    --${s.name}`;
      const def =
        s.type === 'duration'
          ? `=${formatGoDurationMs(Number(s.default ?? 0))}`
          : s.default !== undefined && s.default !== ''
            ? `=${JSON.stringify(s.default)}`
            : '';
      return `    ${head}${def}:\n\t${s.usage}\n`;
    })
    .join('\n');
}
