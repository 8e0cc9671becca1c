import { createReference, ReferenceBackend } from '@egress-proxies/conformance/reference';
import type { Checker, Provider } from '@egress-proxies/contract';
import type { MemoryConfig } from './config.js';

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
 * Proxies on an in-memory hypervisor: the conformance kit's reference backend, so this example
 * runs anywhere. A real provider replaces the backend with its client and keeps the rest.
 */
export function createMemoryProvider(
  config: MemoryConfig,
  options: MemoryProviderOptions = {},
): MemoryProvider {
  const name = options.name ?? MEMORY_TYPE;
  const backend =
    options.backend ??
    new ReferenceBackend({ hosts: config.hosts.map((h) => ({ name: h.name, token: config.token })) });
  const hosts = config.hosts.map((h) =>
    h.address ? { name: h.name, address: h.address } : { name: h.name },
  );
  const { provider, checker } = createReference(name, { ...config, hosts }, backend);
  // One object that is both, with this package's type name on it.
  return {
    name,
    type: MEMORY_TYPE,
    profile: provider.profile,
    create: (req, opts) => provider.create(req, opts),
    get: (id, opts) => provider.get(id, opts),
    delete: (id, opts) => provider.delete(id, opts),
    listByTag: (opts) => provider.listByTag(opts),
    listSecondary: (opts) => provider.listSecondary(opts),
    deleteSecondary: (id, opts) => provider.deleteSecondary(id, opts),
    close: () => provider.close(),
    check: (opts) => checker.check(opts),
  };
}
