import { defineProviderFactory } from '@egress-proxies/contract';
import { memoryConfigSchema } from './config.js';
import { createMemoryProvider, MEMORY_TYPE } from './provider.js';

/**
 * What the operator looks for in this module: a factory for the entry's `type`. Its schema
 * checks the `memory:` block (the operator reports issues at `providers[i].memory...`).
 */
export const memoryProviderFactory = defineProviderFactory(MEMORY_TYPE, {
  configSchema: memoryConfigSchema,
  create: (config, context) => {
    const provider = createMemoryProvider(config, { name: context.name });
    return { provider, checker: provider };
  },
});
