import { type ParseArgsConfig, parseArgs } from 'node:util';
import { closest } from '@egress-proxies/provider-utils';
import { parseDuration } from '../api/duration.js';
import { FlagError } from './flag-error.js';

/**
 * How a command words a bad value (`shown` is the value as given, JSON-quoted). `run` and the
 * standalone commands shipped with different wordings that scripts may match, so each keeps its own.
 */
export interface FlagWording {
  duration(flag: string, shown: string): string;
  integer(flag: string, shown: string, min: number, max: number): string;
  oneOf(flag: string, shown: string, allowed: readonly string[]): string;
  hostPort(flag: string, shown: string): string;
}

type Options = NonNullable<ParseArgsConfig['options']>;
type Values = Record<string, string | string[] | boolean | undefined>;

/**
 * The parser's unknown-option error with the likely flag (`--ocne` -> `--once`) or, without one,
 * the flags the command takes; Node's own advice about positionals does not apply here.
 */
function unknownFlagMessage(err: unknown, options: Options): string | undefined {
  if ((err as { code?: unknown }).code !== 'ERR_PARSE_ARGS_UNKNOWN_OPTION') return undefined;
  const given = /^Unknown option '([^']+)'/.exec(String((err as Error).message))?.[1];
  if (!given) return undefined;
  const flags = Object.keys(options);
  // Every command takes --help too (the dispatcher answers it), so `--halp` is pointed there.
  const guess = closest(given.replace(/^--?/, '').split('=')[0] ?? '', [...flags, 'help']);
  return guess
    ? `Unknown option '${given}' (did you mean --${guess}?)`
    : `Unknown option '${given}' (known: ${flags.map((f) => `--${f}`).join(', ')})`;
}

/**
 * Parses `args` strictly (no positionals) and reads typed values from them; every bad value is a
 * FlagError naming the flag (`--name`) and the value.
 */
export class FlagReader {
  readonly values: Values;

  /** `context` prefixes the parser's own errors (an unknown flag, a missing value). */
  constructor(
    args: string[],
    options: Options,
    private readonly wording: FlagWording,
    context?: string,
  ) {
    try {
      this.values = parseArgs({ args, strict: true, allowPositionals: false, options }).values as Values;
    } catch (err) {
      const message = unknownFlagMessage(err, options) ?? (err instanceof Error ? err.message : String(err));
      throw new FlagError(context ? `${context}: ${message}` : message);
    }
  }

  string(name: string): string | undefined {
    return this.values[name] as string | undefined;
  }

  boolean(name: string): boolean {
    return this.values[name] === true;
  }

  /** Milliseconds; `fallback` (a duration such as `5m`) when the flag is absent. */
  duration(name: string, fallback: string): number {
    const v = this.string(name);
    try {
      return parseDuration(v ?? fallback);
    } catch {
      throw new FlagError(this.wording.duration(`--${name}`, JSON.stringify(v)));
    }
  }

  /** A whole number from `min` to `max`; `fallback` when the flag is absent. */
  integer(name: string, fallback: number, min: number, max: number): number {
    const v = this.string(name);
    if (v === undefined) return fallback;
    const n = Number(v);
    if (!Number.isInteger(n) || n < min || n > max)
      throw new FlagError(this.wording.integer(`--${name}`, JSON.stringify(v), min, max));
    return n;
  }

  /** One of `accepted`; `shown` is the list the error names (a default may go unmentioned). */
  oneOf<T extends string>(
    name: string,
    fallback: T,
    accepted: readonly T[],
    shown: readonly string[] = accepted,
  ): T {
    const v = (this.string(name) ?? fallback) as T;
    if (!accepted.includes(v)) throw new FlagError(this.wording.oneOf(`--${name}`, JSON.stringify(v), shown));
    return v;
  }

  /**
   * `HOST:PORT`; an IPv6 host loses its brackets (`[::1]:9090` binds `::1`), and the host is empty
   * when only `:PORT` was given. Undefined when absent.
   */
  hostPort(name: string, fallback: string): { host: string; port: number };
  hostPort(name: string): { host: string; port: number } | undefined;
  hostPort(name: string, fallback?: string): { host: string; port: number } | undefined {
    const v = this.string(name) ?? fallback;
    if (v === undefined) return undefined;
    const m = /^(.*):(\d{1,5})$/.exec(v);
    const port = m ? Number(m[2]) : Number.NaN;
    if (!m || port > 65535) throw new FlagError(this.wording.hostPort(`--${name}`, JSON.stringify(v)));
    return { host: (m[1] ?? '').replace(/^\[(.*)\]$/, '$1'), port };
  }
}
