import { defineProviderFactory } from '@egress-proxies/contract';
import { createKubernetesProvider } from './provider.js';

/** Registers the kubernetes provider with the contract's registry under type `kubernetes`. */
export const kubernetesProviderFactory = defineProviderFactory('kubernetes', (config, context) => {
  const provider = createKubernetesProvider(config, {
    name: context.name,
    ...(context.logger ? { logger: context.logger } : {}),
  });
  return { provider, checker: provider };
});
