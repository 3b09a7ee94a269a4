import { parseGoBool } from '@kruise/kube-compat/go-bool';
import { formatGoDurationMs, parseGoDurationMs } from '@kruise/kube-compat/go-duration';

/** What a flag holds, as pflag's `Value`: the type name help shows and how the flag's text is read. */
export interface FlagValue<T> {
  /** pflag's name of the type, shown after the flag in help (`string`, `int`, `duration`, …; a `bool` shows none). */
  readonly type: string;
  /**
   * Reads the text given to the flag; `previous` is what the flag got earlier on the same command
   * line (a list appends to it, anything else replaces it). Throws an Error saying why the text is
   * refused, which pflag prints after `invalid argument "TEXT" for "--flag" flag: `.
   */
  readonly parse: (text: string, previous: T | undefined) => T;
  /** The value as Go prints it, for a default in help; `String(value)` when not given. */
  readonly format?: (value: T) => string;
  /** The text the flag alone stands for (pflag's NoOptDefVal, `true` for bools); without it the flag needs a value. */
  readonly noOptDefVal?: string;
}

/** pflag's `String`: any text. */
export const stringValue: FlagValue<string> = { type: 'string', parse: (text) => text };

/** pflag's `Bool`: alone it means true; `--flag=false` in any spelling of Go's strconv.ParseBool (`0`, `F`, `FALSE`, …). */
export const boolValue: FlagValue<boolean> = { type: 'bool', parse: parseGoBool, noOptDefVal: 'true' };

/** pflag's `Int`: a decimal integer, refused in strconv.ParseInt's words. */
export const intValue: FlagValue<number> = {
  type: 'int',
  parse: (text) => {
    if (!/^[+-]?\d+$/.test(text))
      throw new Error(`strconv.ParseInt: parsing ${JSON.stringify(text)}: invalid syntax`);
    return Number(text);
  },
};

/** pflag's `StringArray`: the flag may be repeated, each time adding its text as it is (no splitting at commas). */
export const stringArrayValue: FlagValue<string[]> = {
  type: 'stringArray',
  parse: (text, previous) => [...(previous ?? []), text],
  format: (values) => `[${values.join(',')}]`,
};

/** The longest timer Node.js can set (a longer one fires at once). */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * pflag's `Duration`, in milliseconds: Go durations (`90s`, `10m`, `1h30m`) refused in
 * time.ParseDuration's words, a default printed as Go prints it (`5m0s`). Durations are timers
 * here, so one longer than Node.js can time (24.8 days) is refused too.
 */
export const durationValue: FlagValue<number> = {
  type: 'duration',
  parse: (text) => {
    const ms = parseGoDurationMs(text);
    if (ms > MAX_TIMER_MS)
      throw new Error(`must be at most ${formatGoDurationMs(MAX_TIMER_MS)} (the longest timer Node.js sets)`);
    return ms;
  },
  format: formatGoDurationMs,
};

const isWholeNumber = (text: string, min: number, max: number) =>
  /^\d+$/.test(text) && Number(text) >= min && Number(text) <= max;

/** An `int` flag that takes only whole numbers (digits only) from `min` to `max`, and refuses anything else with `why`. */
export function wholeNumberValue(min: number, max: number, why: string): FlagValue<number> {
  return {
    type: 'int',
    parse: (text) => {
      if (!isWholeNumber(text, min, max)) throw new Error(why);
      return Number(text);
    },
  };
}

/** A port number (0 to 65535; 0 picks a free one). */
export const portValue = wholeNumberValue(0, 65535, 'must be a port number from 0 to 65535');

/** A Go-style listen address (`:8080`, `127.0.0.1:8000`, `[::1]:80`, or `0` to disable), kept as given. */
export const listenAddressValue: FlagValue<string> = {
  type: 'string',
  parse: (text) => {
    const port = text.slice(text.lastIndexOf(':') + 1);
    if (text !== '0' && !(text.includes(':') && isWholeNumber(port, 0, 65535)))
      throw new Error('must be a listen address (host:port, :port, or 0 to disable)');
    return text;
  },
};
