/** The subset of a pino logger the operator's loops use (so tests can pass a silent one). */
export interface OpLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
  debug(obj: object, msg?: string): void;
  child(bindings: object): OpLogger;
}

const noop = () => {};
export const silentOpLogger: OpLogger = {
  info: noop,
  warn: noop,
  error: noop,
  debug: noop,
  child: () => silentOpLogger,
};
