import {
  type ProxmoxConfig,
  type ProxmoxConfigInput,
  type ProxmoxMachineType,
  parseProviderBlock,
  proxmoxConfigSchema,
} from '@egress-proxies/contract';

// The `proxmox` block's schema lives in the contract, so the operator validates a providers file
// without loading this package; this module only applies it.
export { type ProxmoxConfig, type ProxmoxConfigInput, proxmoxConfigSchema };
export type MachineType = ProxmoxMachineType;

/** PVE's node-name rule (the contract checks config values with the same one). */
export const NODE_RE = /^[a-zA-Z0-9]([a-zA-Z0-9-]*[a-zA-Z0-9])?$/;

/** Validates the `proxmox` block; a bad block is the contract's one config error (`invalidConfigError`). */
export function parseProxmoxConfig(input: unknown, provider?: string): ProxmoxConfig {
  return parseProviderBlock('proxmox', input, provider);
}
