import { describe, expect, it } from 'vitest';
import {
  boolValue,
  durationValue,
  FlagSet,
  featureGatesValue,
  intValue,
  portValue,
  stringArrayValue,
  stringValue,
  UsageError,
} from '../src/index.ts';

/** A program's flags, one of each kind. */
const demo = () =>
  new FlagSet('demo', 'Demo: runs nothing.\n  (second line)')
    .flag('name', stringValue, 'kruise', 'the name')
    .flag('empty', stringValue, '', 'nothing by default')
    .flag('leader', boolValue, true, 'elect a leader')
    .flag('verbose', boolValue, false, 'say more')
    .flag('timeout', durationValue, 300_000, 'how long to wait')
    .flag('never', durationValue, 0, 'off by default')
    .flag('workers', intValue, 3, 'workers')
    .flag('port', portValue, 0, 'a port')
    .flag('label', stringArrayValue, [], 'a label\nmay be repeated')
    .flag(
      'gates',
      featureGatesValue((text) => {
        if (text.startsWith('No')) throw new Error(`unrecognized feature gate: ${text.split('=')[0]}`);
      }),
      '',
      'feature gates',
    );

/** What parsing `argv` with the demo's flags throws: exit code and message. */
function refusal(argv: string[]): { exitCode: number; message: string } {
  try {
    demo().parse(argv);
  } catch (err) {
    expect(err).toBeInstanceOf(UsageError);
    const { exitCode, message } = err as UsageError;
    return { exitCode, message };
  }
  throw new Error(`${JSON.stringify(argv)} was accepted`);
}

const usageError = (message: string) => ({ exitCode: 2, message });

describe('FlagSet', () => {
  it('gives each flag its default when not given', () => {
    expect(demo().parse([])).toEqual({
      name: 'kruise',
      empty: '',
      leader: true,
      verbose: false,
      timeout: 300_000,
      never: 0,
      workers: 3,
      port: 0,
      label: [],
      gates: '',
    });
  });

  it('takes a value after `=` or as the next argument', () => {
    expect(
      demo().parse(['--name=a', '--workers', '5', '--timeout', '1h30m', '--gates=A=true']),
    ).toMatchObject({
      name: 'a',
      workers: 5,
      timeout: 5_400_000,
      gates: 'A=true',
    });
    expect(demo().parse(['--name=', '--empty', 'x=y'])).toMatchObject({ name: '', empty: 'x=y' });
    // as pflag: the next argument is the value even when it looks like a flag
    expect(demo().parse(['--name', '--verbose'])).toMatchObject({ name: '--verbose', verbose: false });
  });

  it('reads a bool alone as true and takes a value only after `=`, in any spelling of Go’s ParseBool', () => {
    expect(demo().parse(['--verbose'])).toMatchObject({ verbose: true });
    for (const f of ['false', '0', 'F', 'f', 'FALSE', 'False'])
      expect(demo().parse([`--leader=${f}`]), f).toMatchObject({ leader: false });
    for (const t of ['true', '1', 'T', 't', 'TRUE', 'True'])
      expect(demo().parse([`--verbose=${t}`]), t).toMatchObject({ verbose: true });
    expect(refusal(['--leader', 'false'])).toEqual(
      usageError('too many arguments. Expected 0 arguments but got 1: false.'),
    );
    expect(refusal(['--leader=yes'])).toEqual(
      usageError(
        'invalid argument "yes" for "--leader" flag: strconv.ParseBool: parsing "yes": invalid syntax',
      ),
    );
  });

  it('lets the last of a repeated flag win; a stringArray collects every one', () => {
    expect(
      demo().parse([
        '--workers=1',
        '--workers',
        '2',
        '--leader=false',
        '--leader',
        '--label=a=1',
        '--label',
        'b',
      ]),
    ).toMatchObject({ workers: 2, leader: true, label: ['a=1', 'b'] });
  });

  it('ends the flags at `--`: what follows is an argument, and these programs take none', () => {
    expect(refusal(['--verbose', '--', '--bogus', 'x'])).toEqual(
      usageError('too many arguments. Expected 0 arguments but got 2: --bogus, x.'),
    );
  });

  it('refuses unknown flags, missing values and bad values in pflag’s words, at the first one', () => {
    expect(refusal(['--x'])).toEqual(usageError('unknown flag: --x'));
    expect(refusal(['--x=1', '--workers=two'])).toEqual(usageError('unknown flag: --x'));
    expect(refusal(['-x'])).toEqual(usageError("unknown shorthand flag: 'x' in -x"));
    expect(refusal(['---name'])).toEqual(usageError('bad flag syntax: ---name'));
    expect(refusal(['--verbose', '--name'])).toEqual(usageError('flag needs an argument: --name'));
    expect(refusal(['--workers=two', '--x'])).toEqual(
      usageError(
        'invalid argument "two" for "--workers" flag: strconv.ParseInt: parsing "two": invalid syntax',
      ),
    );
    expect(refusal(['--timeout=300000'])).toEqual(
      usageError('invalid argument "300000" for "--timeout" flag: time: missing unit in duration "300000"'),
    );
    expect(refusal(['--port', '70000'])).toEqual(
      usageError('invalid argument "70000" for "--port" flag: must be a port number from 0 to 65535'),
    );
    expect(refusal(['--gates=NoSuchGate=true'])).toEqual(
      usageError(
        'invalid argument "NoSuchGate=true" for "--gates" flag: unrecognized feature gate: NoSuchGate',
      ),
    );
  });

  it('names every required flag not given, as cobra does', () => {
    const flags = () =>
      new FlagSet('p', 'P.')
        .flag('runtime-endpoint', stringValue, '', 'socket', { required: true })
        .flag('node-name', stringValue, '', 'node', { required: true });
    expect(() => flags().parse([])).toThrow('required flag(s) "node-name", "runtime-endpoint" not set');
    expect(flags().parse(['--node-name=', '--runtime-endpoint=s'])).toEqual({
      'node-name': '',
      'runtime-endpoint': 's',
    });
  });

  it('answers -h and --help with the help, in pflag’s layout (exit code 0)', () => {
    const help = `Demo: runs nothing.
  (second line)

Usage of demo:
      --empty string          nothing by default
      --gates mapStringBool   feature gates
      --label stringArray     a label
                              may be repeated
      --leader                elect a leader (default true)
      --name string           the name (default "kruise")
      --never duration        off by default
      --port int              a port
      --timeout duration      how long to wait (default 5m0s)
      --verbose               say more
      --workers int           workers (default 3)
`;
    expect(demo().usage()).toBe(help);
    for (const argv of [['--help'], ['-h'], ['--verbose', '--help', '--bogus'], ['--help=false']])
      expect(refusal(argv), argv.join(' ')).toEqual({ exitCode: 0, message: help });
    // what comes before the help is read first
    expect(refusal(['--bogus', '--help'])).toEqual(usageError('unknown flag: --bogus'));
  });
});
