export { ProxmoxCheckReason } from './check.js';
export {
  PROXMOX_DEFAULTS,
  type ProxmoxConfig,
  type ProxmoxConfigInput,
  type ProxmoxMachineType,
  proxmoxConfigSchema,
} from './config.js';
export { ProxmoxErrorCode } from './errors.js';
export { proxmoxProviderFactory } from './factory.js';
export { proxmoxProfile } from './profile.js';
export { createProxmoxProvider, type ProxmoxProvider, type ProxmoxProviderOptions } from './provider.js';
