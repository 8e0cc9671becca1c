import { providerFactory } from '@egress-proxies/provider-utils';
import { kvmConfigSchema } from './config.js';
import { createKvmProvider } from './provider.js';

/** Registers type `kvm`: `registry.register(kvmProviderFactory)`; each block arrives validated by its schema. */
export const kvmProviderFactory = providerFactory('kvm', kvmConfigSchema, createKvmProvider);
