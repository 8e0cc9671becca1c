import { providerFactory } from '@egress-proxies/provider-utils';
import { kubernetesConfigSchema } from './config.js';
import { createKubernetesProvider } from './provider.js';

/** Registers type `kubernetes`: `registry.register(kubernetesProviderFactory)`; each block arrives validated by its schema. */
export const kubernetesProviderFactory = providerFactory(
  'kubernetes',
  kubernetesConfigSchema,
  createKubernetesProvider,
);
