export { ApiError, TaskError } from './api-error.js';
export type { Backend, ClusterResource, TaskStatus, VmConfig, VmStatus } from './backend.js';
export { ProxmoxCheckReason } from './check.js';
export { HttpBackend, type HttpBackendOptions } from './client.js';
export {
  type MachineType,
  PROXMOX_DEFAULTS,
  PROXMOX_VMID_MAX,
  PROXMOX_VMID_MIN,
  type ProxmoxConfig,
  type ProxmoxConfigInput,
  type ProxmoxMachineType,
  parseProxmoxConfig,
  proxmoxConfigSchema,
  proxmoxMachineTypeSchema,
} from './config.js';
export type { Budgets } from './context.js';
export { classify } from './errors.js';
export { proxmoxProviderFactory } from './factory.js';
export { formatProviderId, parseProviderId } from './id.js';
export { formatDescription, PROXMOX_DESCRIPTION_KEYS, PROXMOX_TAG, parseDescription } from './marks.js';
export { proxmoxProfile } from './profile.js';
export { createProxmoxProvider, type ProxmoxProvider, type ProxmoxProviderOptions } from './provider.js';
export { firstIPv4, mapState } from './state.js';
export { fnv1a32, vmidFor } from './vmid.js';
