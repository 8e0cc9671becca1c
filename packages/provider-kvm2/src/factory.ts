import { providerFactory } from '@egress-proxies/provider-utils';
import { kvm2ConfigSchema } from './config.js';
import { createKvm2Provider } from './provider.js';

/** Registers type `kvm2`: `registry.register(kvm2ProviderFactory)`; each block arrives validated by its schema. */
export const kvm2ProviderFactory = providerFactory('kvm2', kvm2ConfigSchema, createKvm2Provider);
