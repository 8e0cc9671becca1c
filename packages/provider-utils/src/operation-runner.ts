import {
  type CallOptions,
  ErrorCode,
  isAbortError,
  type LogFields,
  type Logger,
  ProviderError,
  permanentError,
  wrapError,
} from '@egress-proxies/contract';
import { abortReason, raceAbort, throwIfAborted } from './abort.js';
import { silentLogger } from './logger.js';
import { traceFields } from './tracing.js';

/** What one contract call gets from the runner. */
export interface OperationCall {
  /** `create`, `get`, `delete`, `listByTag`, ... */
  readonly operation: string;
  /** The caller's signal. */
  readonly signal: AbortSignal | undefined;
  /** The call's logger (the caller's, else the provider's), naming the provider entry. */
  readonly logger: Logger;
}

export interface OperationRunnerOptions {
  /** The configured provider name, carried by every error and log line. */
  name: string;
  /** The logger a call uses when its options carry none; silent when absent. */
  logger?: Logger | undefined;
  /** True once the provider is closed; every call is then refused with `PROVIDER_CLOSED`. */
  isClosed: () => boolean;
  /**
   * Turns what a call threw (a backend's own error) into a ProviderError where it can, before
   * the configured name and the operation are put on it. Anything left unclassified is Transient.
   */
  classify?: (err: unknown, operation: string) => unknown;
  /**
   * Return as soon as the caller's signal aborts, even when the work cannot be cancelled (its
   * late result is ignored). Default true; a provider whose calls all honour the signal
   * themselves may turn it off.
   */
  raceSignal?: boolean;
  /** Fields on every line besides `provider` (and `operation`, unless `operationField` is false). */
  fields?: LogFields;
  /** Whether each line carries `operation` (default true). */
  operationField?: boolean;
  /** When set, each failure is logged at V1 as `<prefix> <operation> failed`, with its kind and code. */
  failureLogPrefix?: string;
}

/** Runs contract calls the one way every provider does. */
export interface OperationRunner {
  /**
   * Runs one call: refuses it after close (Permanent `PROVIDER_CLOSED`), fails fast on an aborted
   * signal, returns promptly when the signal aborts mid-way (Transient `ABORTED`, or `TIMEOUT`
   * for `AbortSignal.timeout`), and classifies and wraps every error with the configured name
   * and the operation. `fields` go on this call's log lines.
   */
  run<T>(
    operation: string,
    opts: CallOptions | undefined,
    fn: (call: OperationCall) => Promise<T>,
    fields?: LogFields,
  ): Promise<T>;
  /** The call's logger alone, for work outside `run` (a Checker that never rejects). */
  loggerFor(operation: string, opts: CallOptions | undefined, fields?: LogFields): Logger;
  /** The error a call after `close()` gets, already wrapped. */
  closedError(operation: string): ProviderError;
}

/**
 * The `name` field (contract 2.9) for every line of a call about one instance: what `name()`
 * reads (the request's name, the name in the ID), or nothing when it cannot be read (a malformed
 * ID gets its own error, which names it).
 */
export function instanceFields(name: () => unknown): LogFields {
  try {
    const n = name();
    return typeof n === 'string' && n !== '' ? { name: n } : {};
  } catch {
    return {};
  }
}

/**
 * What an aborted call failed with: the signal's reason when it is an abort (or already
 * classified), else an `AbortError` carrying its message. A caller may abort with any reason (the
 * operator stopping aborts with its own words); it is still an abort, `ABORTED` by contract 2.6,
 * not an unclassified failure that would read as `TRANSIENT`.
 */
function abortCause(signal: AbortSignal): unknown {
  const reason = abortReason(signal);
  if (isAbortError(reason) || ProviderError.isInstance(reason)) return reason;
  return new DOMException(reason.message, 'AbortError');
}

/** The error every call after `close()` gets: Permanent `PROVIDER_CLOSED`. */
export function providerClosedError(provider: string, operation: string): ProviderError {
  return wrapError(
    provider,
    operation,
    permanentError('the provider is closed', { code: ErrorCode.ProviderClosed }),
  );
}

export function createOperationRunner(options: OperationRunnerOptions): OperationRunner {
  const { name } = options;
  const loggerFor = (operation: string, opts: CallOptions | undefined, fields: LogFields = {}) =>
    (opts?.logger ?? options.logger ?? silentLogger).child({
      ...options.fields,
      provider: name,
      ...(options.operationField === false ? {} : { operation }),
      // The caller's trace IDs on every line of the call (a backend call's own span overrides them).
      ...traceFields(),
      ...fields,
    });
  return {
    loggerFor,
    closedError: (operation) => providerClosedError(name, operation),
    async run(operation, opts, fn, fields) {
      // Outside the try: a closed provider answers PROVIDER_CLOSED whatever the signal says.
      if (options.isClosed()) throw providerClosedError(name, operation);
      const signal = opts?.signal;
      const logger = loggerFor(operation, opts, fields);
      try {
        throwIfAborted(signal);
        const work = fn({ operation, signal, logger });
        return await (options.raceSignal === false ? work : raceAbort(work, signal));
      } catch (err) {
        // Once the signal aborted, the abort is what happened, whatever the transport (or a
        // step that noticed it) rejected with.
        const cause = signal?.aborted ? abortCause(signal) : err;
        const wrapped = wrapError(
          name,
          operation,
          options.classify ? options.classify(cause, operation) : cause,
        );
        if (options.failureLogPrefix) {
          logger.log(1, `${options.failureLogPrefix} ${operation} failed`, {
            error: wrapped.reason,
            kind: wrapped.kind,
            code: wrapped.code,
          });
        }
        throw wrapped;
      }
    },
  };
}
