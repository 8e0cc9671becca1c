/**
 * A small leveled logger. Providers log operation outcomes at V1 and detail (parameters,
 * addresses, XML) at V2; nothing at V0. The default is silent, so a library never writes to a
 * process's output unless its user asked.
 */
export type LogLevel = 1 | 2;
export type LogFields = Record<string, unknown>;

export interface Logger {
  /** The highest level this logger writes; 0 means silent. */
  readonly verbosity: number;
  log(level: LogLevel, message: string, fields?: LogFields): void;
  /** A logger that adds `fields` to every line. */
  child(fields: LogFields): Logger;
}
