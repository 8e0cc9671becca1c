import type { LogFields, Logger, LogLevel } from '@egress-proxies/contract';

class SilentLogger implements Logger {
  readonly verbosity = 0;
  log(): void {}
  child(): Logger {
    return this;
  }
}

/** Writes nothing; what every call uses when its options carry no logger. */
export const silentLogger: Logger = new SilentLogger();

/** The logger from call options, or the silent one. */
export function loggerOf(opts?: { logger?: Logger | undefined }): Logger {
  return opts?.logger ?? silentLogger;
}

/** One line handed to a `createLogger` sink. */
export interface LogLine extends LogFields {
  level: LogLevel;
  msg: string;
}

/**
 * A logger that hands each line to `sink` as one object (`{level, msg, ...fields}`), writing
 * lines up to `verbosity`. Tests use it to capture lines; programs can print them as JSON.
 */
export function createLogger(options: {
  verbosity: number;
  sink: (line: LogLine) => void;
  fields?: LogFields;
}): Logger {
  const { verbosity, sink } = options;
  const base = options.fields ?? {};
  return {
    verbosity,
    log(level, message, fields) {
      if (level > verbosity) return;
      sink({ ...base, ...fields, level, msg: message });
    },
    child(fields) {
      return createLogger({ verbosity, sink, fields: { ...base, ...fields } });
    },
  };
}

/** The subset of a pino logger the adapter uses (structural, so pino is not a dependency). */
export interface PinoLike {
  info(obj: object, msg?: string): void;
  debug(obj: object, msg?: string): void;
  trace(obj: object, msg?: string): void;
  child(bindings: object): PinoLike;
  isLevelEnabled?(level: string): boolean;
}

/** The pino methods the adapter may map a tier to. */
export type PinoLevel = 'info' | 'debug' | 'trace';

/**
 * Adapts a pino logger. V1 maps to `debug` and V2 to `trace` by default (an operator's `info`
 * stays for its own outcome lines); `levels` changes the mapping. `verbosity` defaults to what
 * pino has enabled.
 */
export function pinoLogger(
  pino: PinoLike,
  options: { verbosity?: number; levels?: { 1: PinoLevel; 2: PinoLevel } } = {},
): Logger {
  const levels = options.levels ?? { 1: 'debug', 2: 'trace' };
  const enabled = (l: PinoLevel) => (pino.isLevelEnabled ? pino.isLevelEnabled(l) : true);
  const verbosity = options.verbosity ?? (enabled(levels[2]) ? 2 : enabled(levels[1]) ? 1 : 0);
  return {
    verbosity,
    log(level, message, fields) {
      if (level > verbosity) return;
      pino[levels[level]]({ v: level, ...fields }, message);
    },
    child(fields) {
      return pinoLogger(pino.child(fields), { verbosity, levels });
    },
  };
}
