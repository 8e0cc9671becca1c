import { providerFactory } from '@egress-proxies/provider-utils';
import { memoryConfigSchema } from './config.js';
import { createMemoryProvider, MEMORY_TYPE } from './provider.js';

/**
 * What the operator looks for in this module: a factory for the entry's `type`. Its schema
 * checks the `memory:` block (the operator reports issues at `providers[i].memory...`).
 */
export const memoryProviderFactory = providerFactory(MEMORY_TYPE, memoryConfigSchema, createMemoryProvider);
