import type { Checker } from '@egress-proxies/contract';
import { providerFactory } from '@egress-proxies/provider-utils';
import type { ReferenceBackend } from './backend.js';
import { ReferenceChecker } from './checker.js';
import {
  type ReferenceConfig,
  type ReferenceConfigInput,
  referenceConfigSchema,
  resolveReferenceConfig,
} from './config.js';
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

export interface ReferenceProviderOptions {
  /** The configured entry name, carried into every error and log line; `reference` when absent. */
  name?: string;
  /** The backend to talk to; a fresh in-memory cluster of the configured hosts when absent. */
  backend?: ReferenceBackend;
}

/** The reference provider entry: the Provider and its Checker in one object. */
export type ReferenceProviderWithChecker = ReferenceProvider & Checker;

/**
 * Builds the reference provider from its block: one object that is the Provider and its
 * Checker. A bad block throws the Permanent `INVALID_CONFIG` error; nothing touches the backend
 * until the first call; after `close()` every call is refused with `PROVIDER_CLOSED`.
 */
export function createReferenceProvider(
  config: ReferenceConfigInput,
  options: ReferenceProviderOptions = {},
): ReferenceProviderWithChecker {
  const { provider, checker } = createReference(options.name ?? REFERENCE_TYPE, config, options.backend);
  return Object.assign(provider, { check: checker.check.bind(checker) });
}

/** Registers type `reference`: `registry.register(referenceProviderFactory)`; each block arrives validated by its schema. */
export const referenceProviderFactory = providerFactory(
  REFERENCE_TYPE,
  referenceConfigSchema,
  createReferenceProvider,
);
