import {
  ErrorCode,
  type ProxmoxConfig,
  type ProxmoxConfigInput,
  type ProxmoxMachineType,
  permanentError,
  proxmoxConfigSchema,
} from '@egress-proxies/contract';

// The `proxmox` block's schema lives in the contract, so the operator validates a providers file
// without loading this package; this module only applies it.
export { type ProxmoxConfig, type ProxmoxConfigInput, proxmoxConfigSchema };
export type MachineType = ProxmoxMachineType;

/** PVE's node-name rule (the contract checks config values with the same one). */
export const NODE_RE = /^[a-zA-Z0-9]([a-zA-Z0-9-]*[a-zA-Z0-9])?$/;

/** Validates the `proxmox` block; a bad block is Permanent `INVALID_CONFIG`, naming each bad field. */
export function parseProxmoxConfig(input: unknown): ProxmoxConfig {
  const r = proxmoxConfigSchema.safeParse(input);
  if (r.success) return r.data;
  const problems = r.error.issues.map(
    (i) => `${i.path.length ? i.path.join('.') : '(config)'}: ${i.message}`,
  );
  throw permanentError(`invalid proxmox config: ${problems.join('; ')}`, { code: ErrorCode.InvalidConfig });
}
