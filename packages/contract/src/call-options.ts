import type { Logger } from './logger.js';

/** Options every provider call takes. */
export interface CallOptions {
  /** Aborts the call; an aborted call rejects promptly with a Transient `ABORTED` error. */
  signal?: AbortSignal;
  /** Where the call logs; silent when absent. */
  logger?: Logger;
}
