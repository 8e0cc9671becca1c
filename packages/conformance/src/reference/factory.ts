import type { Checker, ProviderFactory } from '@egress-proxies/contract';
import type { ReferenceBackend } from './backend.js';
import { ReferenceChecker } from './checker.js';
import { type ReferenceConfig, resolveReferenceConfig } from './config.js';
import { REFERENCE_TYPE, ReferenceProvider } from './provider.js';

/** A provider and its Checker over one backend (a fresh in-memory one when absent). */
export function createReference(
  name: string,
  config: ReferenceConfig,
  backend?: ReferenceBackend,
): { provider: ReferenceProvider; checker: Checker } {
  const provider = new ReferenceProvider({ name, config, ...(backend ? { backend } : {}) });
  const checker = new ReferenceChecker(
    name,
    resolveReferenceConfig(name, config),
    provider.backend,
    () => provider.closed,
  );
  return { provider, checker };
}

/** Registers the reference provider under type `reference` in a ProviderRegistry. */
export const referenceProviderFactory: ProviderFactory<ReferenceConfig> = {
  type: REFERENCE_TYPE,
  create(config, context) {
    return createReference(context.name, config);
  },
};
