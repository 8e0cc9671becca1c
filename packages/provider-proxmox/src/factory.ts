import { providerFactory } from '@egress-proxies/provider-utils';
import { proxmoxConfigSchema } from './config.js';
import { createProxmoxProvider } from './provider.js';

/** Registers type `proxmox`: `registry.register(proxmoxProviderFactory)`; each block arrives validated by its schema. */
export const proxmoxProviderFactory = providerFactory('proxmox', proxmoxConfigSchema, createProxmoxProvider);
