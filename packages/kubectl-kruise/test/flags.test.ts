import { describe, expect, it } from 'vitest';
import { type FlagSpec, parseArgs } from '../src/flags.ts';

const specs: FlagSpec[] = [
  { name: 'namespace', short: 'n', type: 'string', usage: '' },
  { name: 'watch', short: 'w', type: 'bool', default: true, usage: '' },
  { name: 'all', short: 'a', type: 'bool', usage: '' },
  { name: 'replicas', type: 'int', usage: '' },
  { name: 'env', short: 'e', type: 'strings', usage: '' },
  { name: 'timeout', type: 'duration', usage: '' },
  { name: 'dry-run', type: 'string', default: 'none', noValue: 'unchanged', usage: '' },
];

describe('parseArgs (pflag rules)', () => {
  it('reads every form kubectl accepts, flags anywhere among the arguments', () => {
    const p = parseArgs(
      [
        'cloneset',
        '-nteam',
        'web',
        '--replicas',
        '3',
        '-e',
        'A=1',
        '--env=B=2,C=3',
        '--watch=false',
        '--timeout=1m30s',
      ],
      specs,
    );
    expect(p.args).toEqual(['cloneset', 'web']);
    expect(p.flags).toMatchObject({
      namespace: 'team',
      replicas: 3,
      env: ['A=1', 'B=2', 'C=3'],
      watch: false,
      timeout: 90_000,
      'dry-run': 'none',
    });
    expect([...p.given].sort()).toEqual(['env', 'namespace', 'replicas', 'timeout', 'watch']);
  });

  it('groups boolean shorthands, gives a bare --dry-run its no-value, and stops at --', () => {
    const p = parseArgs(['-aw=false', '--dry-run', '--', '--replicas=1', '-x'], specs);
    expect(p.flags).toMatchObject({ all: true, watch: false, 'dry-run': 'unchanged' });
    expect(p.args).toEqual(['--replicas=1', '-x']);
  });

  it('fails with pflag’s words', () => {
    expect(() => parseArgs(['--nope'], specs)).toThrow('unknown flag: --nope');
    expect(() => parseArgs(['-ax'], specs)).toThrow("unknown shorthand flag: 'x' in -ax");
    expect(() => parseArgs(['-n'], specs)).toThrow("flag needs an argument: 'n' in -n");
    expect(() => parseArgs(['--replicas'], specs)).toThrow('flag needs an argument: --replicas');
    expect(() => parseArgs(['--replicas=1.5'], specs)).toThrow(
      'invalid argument "1.5" for "--replicas" flag: strconv.ParseInt: parsing "1.5": invalid syntax',
    );
    expect(() => parseArgs(['--watch=maybe'], specs)).toThrow(
      'invalid argument "maybe" for "-w, --watch" flag: strconv.ParseBool: parsing "maybe": invalid syntax',
    );
    expect(() => parseArgs(['--timeout=soon'], specs)).toThrow(
      'invalid argument "soon" for "--timeout" flag: time: invalid duration "soon"',
    );
  });
});
