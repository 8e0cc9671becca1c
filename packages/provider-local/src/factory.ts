import { providerFactory } from '@egress-proxies/provider-utils';
import { localConfigSchema } from './config.js';
import { createLocalProvider, LOCAL_TYPE } from './provider.js';

/** Registers type `local`: `registry.register(localProviderFactory)`; each block arrives validated by its schema. */
export const localProviderFactory = providerFactory(LOCAL_TYPE, localConfigSchema, createLocalProvider);
