import { providerFactory } from '@egress-proxies/provider-utils';
import { gcpConfigSchema } from './config.js';
import { createGcpProvider } from './provider.js';

/** Registers type `gcp`: `registry.register(gcpProviderFactory)`; each block arrives validated by its schema. */
export const gcpProviderFactory = providerFactory('gcp', gcpConfigSchema, createGcpProvider);
