// Numeric flags are parsed and range-checked by one helper: a bad value is a coded USAGE error
// naming the flag, the range and the value (exit 2), never NaN or a silent default.
import { Command } from 'commander';
import { ErrorCode } from '../../../core/errors';
import { FLAG_RANGES, intFlag, intListFlag, parseIntFlag } from '../../../cli/flags';
import { errorOf as usageOf } from '../../helpers/errors';

describe('parseIntFlag', () => {
  const r = { min: 1, max: 100 };

  it('accepts integers inside the range, with surrounding spaces or a plus sign', () => {
    expect(parseIntFlag('--n', '1', r)).toBe(1);
    expect(parseIntFlag('--n', '100', r)).toBe(100);
    expect(parseIntFlag('--n', ' 42 ', r)).toBe(42);
    expect(parseIntFlag('--n', '+7', r)).toBe(7);
  });

  it.each(['abc', '', ' ', '1.5', '1e2', '0x10', '12abc', 'NaN', 'Infinity', '-'])('rejects %p as not an integer', (v) => {
    const e = usageOf(() => parseIntFlag('--concurrency', v, r));
    expect(e.code).toBe(ErrorCode.USAGE);
    expect(e.message).toBe(`--concurrency must be an integer from 1 to 100, got '${v}'`);
    expect(e.context).toEqual({ flag: '--concurrency', value: v, min: 1, max: 100 });
  });

  it.each(['0', '-1', '101', '2147483648', '99999999999999999999'])('rejects %p as out of range', (v) => {
    expect(usageOf(() => parseIntFlag('--n', v, r)).code).toBe(ErrorCode.USAGE);
  });

  it('0 is valid where the range allows it (--max-failed, --calls-per-second)', () => {
    expect(parseIntFlag('--max-failed', '0', FLAG_RANGES.maxFailed)).toBe(0);
    expect(usageOf(() => parseIntFlag('--max-failed', '-1', FLAG_RANGES.maxFailed)).message).toContain("got '-1'");
    expect(parseIntFlag('--calls-per-second', '0', FLAG_RANGES.callsPerSecond)).toBe(0);
  });

  it('wave numbers start at 1 and stay far below the 32-bit limit of the state store', () => {
    expect(usageOf(() => parseIntFlag('--wave', '0', FLAG_RANGES.wave)).code).toBe(ErrorCode.USAGE);
    expect(usageOf(() => parseIntFlag('--wave', String(2 ** 31), FLAG_RANGES.wave)).code).toBe(ErrorCode.USAGE);
    expect(FLAG_RANGES.wave.max).toBeLessThan(2 ** 31);
  });
});

describe('intFlag / intListFlag with commander', () => {
  const program = (): Command =>
    new Command('t')
      .exitOverride()
      .option('--concurrency <n>', 'x', intFlag('--concurrency', { min: 1, max: 8 }), 4)
      .option('--wave <n>', 'x', intListFlag('--wave', FLAG_RANGES.wave), [] as number[]);

  it('parses values and keeps the default when the flag is absent', () => {
    expect(program().parse(['--concurrency', '8', '--wave', '1', '--wave', '3'], { from: 'user' }).opts()).toEqual({
      concurrency: 8,
      wave: [1, 3],
    });
    expect(program().parse([], { from: 'user' }).opts()).toEqual({ concurrency: 4, wave: [] });
  });

  it('a bad value throws the coded error out of parse (before any action runs)', () => {
    let ran = false;
    const p = program().action(() => void (ran = true));
    const e = usageOf(() => p.parse(['--wave', '1', '--wave', 'abc'], { from: 'user' }));
    expect(e.message).toBe(`--wave must be an integer from 1 to ${FLAG_RANGES.wave.max}, got 'abc'`);
    expect(usageOf(() => program().parse(['--concurrency=9'], { from: 'user' })).context).toMatchObject({
      flag: '--concurrency',
      value: '9',
    });
    expect(ran).toBe(false);
  });
});
