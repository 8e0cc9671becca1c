import { describe, expect, it } from 'vitest';
import { FlagError } from './flag-error.js';
import { FlagReader, type FlagWording } from './flag-reader.js';

const wording: FlagWording = {
  duration: (flag, shown) => `${flag} duration ${shown}`,
  integer: (flag, shown, min, max) => `${flag} integer ${shown} ${min}..${max}`,
  oneOf: (flag, shown, allowed) => `${flag} oneOf ${shown} [${allowed.join('|')}]`,
  hostPort: (flag, shown) => `${flag} hostPort ${shown}`,
};
const options = {
  n: { type: 'string' },
  bind: { type: 'string' },
  mode: { type: 'string' },
  wait: { type: 'string' },
} as const;
const read = (args: string[], context?: string) => new FlagReader(args, options, wording, context);

describe('FlagReader', () => {
  it("prefixes the parser's own errors with the context when given", () => {
    expect(() => read(['--bogus'], 'up')).toThrow(/^up: Unknown option '--bogus'/);
    expect(() => read(['--bogus'])).toThrow(/^Unknown option '--bogus'/);
    expect(() => read(['stray'])).toThrow(FlagError);
  });

  it('suggests the flag a typo most likely meant, else names the flags it takes', () => {
    expect(() => read(['--wiat', '1s'], 'up')).toThrow("up: Unknown option '--wiat' (did you mean --wait?)");
    expect(() => read(['--Bind=:1'])).toThrow("Unknown option '--Bind' (did you mean --bind?)");
    expect(() => read(['--bogus'])).toThrow("Unknown option '--bogus' (known: --n, --bind, --mode, --wait)");
  });

  it('takes integers within the bounds, both ends included, and words the rest its own way', () => {
    expect(read(['--n', '1']).integer('n', 4, 1, 8)).toBe(1);
    expect(read(['--n', '8']).integer('n', 4, 1, 8)).toBe(8);
    expect(read([]).integer('n', 4, 1, 8)).toBe(4);
    expect(() => read(['--n', '9']).integer('n', 4, 1, 8)).toThrow('--n integer "9" 1..8');
    expect(() => read(['--n', '1.5']).integer('n', 4, 1, 8)).toThrow('--n integer "1.5" 1..8');
  });

  it('names the list it was given, not necessarily every accepted value', () => {
    const r = read(['--mode', 'x']);
    expect(() => r.oneOf('mode', 'auto', ['auto', 'a', 'b'], ['a', 'b'])).toThrow('--mode oneOf "x" [a|b]');
    expect(read([]).oneOf('mode', 'auto', ['auto', 'a'])).toBe('auto');
  });

  it('reads durations, with the fallback when absent', () => {
    expect(read(['--wait', '1m30s']).duration('wait', '2m')).toBe(90_000);
    expect(read([]).duration('wait', '2m')).toBe(120_000);
    expect(() => read(['--wait', 'soon']).duration('wait', '2m')).toThrow('--wait duration "soon"');
  });

  it('splits HOST:PORT leaving the host as written, and is undefined when absent without a fallback', () => {
    expect(read([]).hostPort('bind')).toBeUndefined();
    expect(read([]).hostPort('bind', ':8080')).toEqual({ host: '', port: 8080 });
    expect(read(['--bind', '[::1]:9090']).hostPort('bind')).toEqual({ host: '::1', port: 9090 });
    expect(() => read(['--bind', 'h:70000']).hostPort('bind')).toThrow('--bind hostPort "h:70000"');
    expect(() => read(['--bind', 'h']).hostPort('bind')).toThrow('--bind hostPort "h"');
  });
});
