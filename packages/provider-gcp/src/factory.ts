import type { ProviderFactory } from '@egress-proxies/contract';
import type { GcpConfig } from './config.js';
import { createGcpProvider } from './provider.js';

/** Registers the gcp provider with the contract's registry under type `gcp`. */
export const gcpProviderFactory: ProviderFactory<GcpConfig> = {
  type: 'gcp',
  create(config, context) {
    const provider = createGcpProvider(config, {
      name: context.name,
      ...(context.logger ? { logger: context.logger } : {}),
    });
    return { provider, checker: provider };
  },
};
