import { defineProviderFactory } from '@egress-proxies/contract';
import { createProxmoxProvider } from './provider.js';

export { ApiError, TaskError } from './api-error.js';
export type { Backend, ClusterResource, TaskStatus, VmConfig, VmStatus } from './backend.js';
export { ProxmoxCheckReason } from './check.js';
export { HttpBackend, type HttpBackendOptions } from './client.js';
export {
  type MachineType,
  type ProxmoxConfig,
  type ProxmoxConfigInput,
  parseProxmoxConfig,
  proxmoxConfigSchema,
} from './config.js';
export type { Budgets } from './context.js';
export { classify } from './errors.js';
export { formatProviderId, parseProviderId } from './id.js';
export { formatDescription, parseDescription } from './marks.js';
export { proxmoxProfile } from './profile.js';
export { createProxmoxProvider, type ProxmoxProvider, type ProxmoxProviderOptions } from './provider.js';
export { firstIPv4, mapState } from './state.js';
export { fnv1a32, vmidFor } from './vmid.js';

/** The registry entry: `registry.register(proxmoxProviderFactory)`; the block arrives validated. */
export const proxmoxProviderFactory = defineProviderFactory('proxmox', (config, context) => {
  const provider = createProxmoxProvider(config, { name: context.name, logger: context.logger });
  return { provider, checker: provider };
});
