import { createReferenceProvider, type ReferenceBackend } from '@egress-proxies/conformance/reference';
import type { Checker, Provider } from '@egress-proxies/contract';
import { parseConfig } from '@egress-proxies/provider-utils';
import { type MemoryConfigInput, memoryConfigSchema } from './config.js';

export const MEMORY_TYPE = 'memory';

export interface MemoryProviderOptions {
  /** The configured entry name, carried into every error and log line; `memory` when absent. */
  name?: string;
  /** The backend to run on; a fresh one per provider when absent (tests share one with the kit). */
  backend?: ReferenceBackend;
}

/** The provider and its health checker, one object. */
export type MemoryProvider = Provider & Checker;

/**
 * Proxies on an in-memory hypervisor: the conformance kit's reference provider, so this example
 * runs anywhere. A real provider replaces the backend with its client and keeps the rest. A bad
 * block throws the one config error (Permanent `INVALID_CONFIG`) before anything is built.
 */
export function createMemoryProvider(
  config: MemoryConfigInput,
  options: MemoryProviderOptions = {},
): MemoryProvider {
  const name = options.name ?? MEMORY_TYPE;
  const cfg = parseConfig(memoryConfigSchema, config, { type: MEMORY_TYPE, provider: name });
  const hosts = cfg.hosts.map((h) => (h.address ? { name: h.name, address: h.address } : { name: h.name }));
  const inner = createReferenceProvider(
    { ...cfg, hosts },
    { name, ...(options.backend ? { backend: options.backend } : {}) },
  );
  // One object that is both, with this package's type name on it.
  return {
    name,
    type: MEMORY_TYPE,
    profile: inner.profile,
    create: (req, opts) => inner.create(req, opts),
    get: (id, opts) => inner.get(id, opts),
    delete: (id, opts) => inner.delete(id, opts),
    listByTag: (opts) => inner.listByTag(opts),
    listSecondary: (opts) => inner.listSecondary(opts),
    deleteSecondary: (id, opts) => inner.deleteSecondary(id, opts),
    close: () => inner.close(),
    check: (opts) => inner.check(opts),
  };
}
