import { flagUsages } from './flag-usages.ts';
import type { FlagValue } from './flag-values.ts';
import { UsageError } from './usage-error.ts';

/** One declared flag. */
export interface Flag<T> {
  /** The long name, without dashes (`metrics-addr`). */
  readonly name: string;
  readonly value: FlagValue<T>;
  /** The value when the flag is not given. */
  readonly defaultValue: T;
  /** What the flag does, for help. */
  readonly usage: string;
  /** The flag must be given (cobra's MarkFlagRequired). */
  readonly required: boolean;
}

/**
 * A program's flags as Go's pflag has them, what upstream's programs parse their command lines with:
 * `--flag=value` or `--flag value` (a bool alone means true and takes a value only after `=`), the
 * last of a repeated flag winning, `--` ending the flags, `-h`/`--help` asking for help. Declare
 * each flag with {@link FlagSet.flag}, then {@link FlagSet.parse} gives the values by flag name.
 * The programs here take no arguments besides flags.
 */
export class FlagSet<V extends object = Record<never, never>> {
  /** The program's name, for help (`Usage of NAME:`). */
  readonly name: string;
  /** What the program runs, the first lines of its help. */
  readonly description: string;
  readonly #flags = new Map<string, Flag<unknown>>();

  constructor(name: string, description: string) {
    this.name = name;
    this.description = description;
  }

  /**
   * Declares `--name` holding a `value` (its type: {@link stringValue}, {@link intValue},
   * {@link durationValue}, … or the program's own), `defaultValue` when not given; a `required`
   * flag must be given.
   */
  flag<N extends string, T>(
    name: N,
    value: FlagValue<T>,
    defaultValue: NoInfer<T>,
    usage: string,
    options: { required?: boolean } = {},
  ): FlagSet<V & { readonly [K in N]: T }> {
    if (this.#flags.has(name)) throw new Error(`flag redefined: ${name}`);
    this.#flags.set(name, {
      name,
      value,
      defaultValue,
      usage,
      required: options.required ?? false,
    } as Flag<unknown>);
    return this as unknown as FlagSet<V & { readonly [K in N]: T }>;
  }

  /**
   * Reads the user's arguments into the flags' values (each flag's default when not given).
   * @throws UsageError with exit code 0 and the help after `-h` or `--help`; with exit code 2 and
   * pflag's words for a command line the program cannot run with: `unknown flag: --foo`, `flag
   * needs an argument: --kubeconfig`, `invalid argument "300000" for "--expectation-timeout" flag:
   * time: missing unit in duration "300000"`, `required flag(s) "node-name" not set`.
   */
  parse(argv: readonly string[]): V {
    const given = new Map<string, unknown>();
    const args: string[] = [];
    for (let i = 0; i < argv.length; i++) {
      const arg = argv[i]!;
      if (arg === '--') {
        args.push(...argv.slice(i + 1));
        break;
      }
      if (arg.length < 2 || !arg.startsWith('-')) args.push(arg);
      else if (!arg.startsWith('--')) throw this.#shorthand(arg);
      else {
        const [flag, text, taken] = this.#longFlag(arg, argv[i + 1]);
        i += taken;
        try {
          given.set(flag.name, flag.value.parse(text, given.get(flag.name)));
        } catch (err) {
          const why = (err as Error).message;
          throw new UsageError(
            2,
            `invalid argument ${JSON.stringify(text)} for "--${flag.name}" flag: ${why}`,
          );
        }
      }
    }
    if (args.length > 0)
      throw new UsageError(
        2,
        `too many arguments. Expected 0 arguments but got ${args.length}: ${args.join(', ')}.`,
      );
    const missing = [...this.#flags.values()].filter((f) => f.required && !given.has(f.name));
    if (missing.length > 0)
      throw new UsageError(
        2,
        `required flag(s) "${missing
          .map((f) => f.name)
          .sort()
          .join('", "')}" not set`,
      );
    const values = [...this.#flags.values()].map((f) => [
      f.name,
      given.has(f.name) ? given.get(f.name) : f.defaultValue,
    ]);
    return Object.fromEntries(values) as V;
  }

  /** The help: the program's description, then `Usage of NAME:` and the flags as pflag lists them. */
  usage(): string {
    return `${this.description}\n\nUsage of ${this.name}:\n${flagUsages(this.#flags.values())}`;
  }

  /**
   * `--name=text`, `--name text` (then `taken` is 1) or `--name` alone (a bool): the flag and the
   * text it is given.
   */
  #longFlag(arg: string, next: string | undefined): [flag: Flag<unknown>, text: string, taken: 0 | 1] {
    const body = arg.slice(2);
    if (body.startsWith('-') || body.startsWith('=')) throw new UsageError(2, `bad flag syntax: ${arg}`);
    const eq = body.indexOf('=');
    const name = eq < 0 ? body : body.slice(0, eq);
    const flag = this.#flags.get(name);
    if (!flag) {
      if (name === 'help') throw new UsageError(0, this.usage());
      throw new UsageError(2, `unknown flag: --${name}`);
    }
    if (eq >= 0) return [flag, body.slice(eq + 1), 0];
    if (flag.value.noOptDefVal !== undefined) return [flag, flag.value.noOptDefVal, 0];
    if (next === undefined) throw new UsageError(2, `flag needs an argument: ${arg}`);
    return [flag, next, 1];
  }

  /** `-h…` asks for help; no other shorthand is declared. */
  #shorthand(arg: string): UsageError {
    if (arg[1] === 'h') return new UsageError(0, this.usage());
    return new UsageError(2, `unknown shorthand flag: '${arg[1]}' in ${arg}`);
  }
}
