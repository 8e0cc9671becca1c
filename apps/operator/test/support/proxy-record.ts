import type { ProxyRecord } from '../../src/standalone/state-file.js';

/** A ProxyRecord for tests: a default-namespace Proxy of the `local` provider, overridden by `over`. */
export const proxyRecord = (over: Partial<ProxyRecord>): ProxyRecord => ({
  namespace: 'default',
  name: 'p',
  uid: 'u',
  generation: 1,
  spec: { provider: 'local' },
  finalizers: [],
  ...over,
});
