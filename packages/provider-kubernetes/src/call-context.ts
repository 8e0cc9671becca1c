import { AsyncLocalStorage } from 'node:async_hooks';
import type { Logger } from '@egress-proxies/contract';
import { silentLogger } from '@egress-proxies/provider-utils';

// The seam decorator is applied once, when the provider is built; the logger of the call in
// progress reaches it through async context instead of an extra parameter on every seam method.
const storage = new AsyncLocalStorage<Logger>();

export function runWithLogger<T>(logger: Logger, fn: () => Promise<T>): Promise<T> {
  return storage.run(logger, fn);
}

export function currentLogger(): Logger {
  return storage.getStore() ?? silentLogger;
}
