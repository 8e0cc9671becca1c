import { AsyncLocalStorage } from 'node:async_hooks';
import type { Logger } from '@egress-proxies/contract';
import { silentLogger } from '@egress-proxies/provider-utils';

// The seam decorator is built once, but each contract call brings its own logger; the call's
// async context carries it down to the decorator without threading it through every signature.
const storage = new AsyncLocalStorage<Logger>();

export function runWithLogger<T>(logger: Logger, fn: () => Promise<T>): Promise<T> {
  return storage.run(logger, fn);
}

export function currentLogger(): Logger {
  return storage.getStore() ?? silentLogger;
}
