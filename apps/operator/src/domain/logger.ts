import type { Logger } from '@egress-proxies/contract';
import { type DestinationStream, type Logger as Pino, pino } from 'pino';

export { LOG_LEVELS, type LogLevelName } from './log-levels.js';

import { pinoLogger } from '@egress-proxies/provider-utils';
import type { LogLevelName } from './log-levels.js';

/** The operator's JSON logger (pino): one JSON object per line on stdout, or on `destination`. */
export function createOperatorLogger(level: LogLevelName = 'info', destination?: DestinationStream): Pino {
  return pino(
    {
      level,
      base: { component: 'egress-proxies-operator' },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      // A last line of defence: these keys never reach the output, whoever logs them.
      redact: {
        paths: ['cloudInit', '*.cloudInit', 'token', '*.token', 'password', '*.password'],
        censor: '[redacted]',
      },
    },
    destination,
  );
}

/**
 * The contract Logger the providers get: their V1 outcome lines at debug, V2 detail at trace
 * (the operator's own lines keep info), so `--log-level=debug` shows what providers did.
 */
export function providerLoggerFrom(log: Pino): Logger {
  return pinoLogger(log, { levels: { 1: 'debug', 2: 'trace' } });
}
