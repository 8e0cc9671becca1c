import { defineProviderFactory } from '@egress-proxies/contract';
import { createGcpProvider } from './provider.js';

/**
 * Registers the gcp provider with the contract's registry under type `gcp`; it carries the gcp
 * block's schema, so the operator validates a `module:` entry of this type with it too.
 */
export const gcpProviderFactory = defineProviderFactory('gcp', (config, context) => {
  const provider = createGcpProvider(config, {
    name: context.name,
    ...(context.logger ? { logger: context.logger } : {}),
  });
  return { provider, checker: provider };
});
