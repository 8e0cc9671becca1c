import * as z from 'zod';
import { ALWAYS, catalogue, filePath, int, interfaceName, range, uniqueStrings, url } from './fields.js';
import { formatValue } from './format-value.js';

/** The VMIDs Proxmox accepts at all. */
export const PROXMOX_VMID_MIN = 100;
export const PROXMOX_VMID_MAX = 999_999_999;

export const PROXMOX_DEFAULTS = {
  insecureSkipTLSVerify: false,
  vmidRange: { min: 100_000, max: 199_999 },
  requestTimeoutSeconds: 30,
  installGuestAgent: true,
  maxParallelClonesPerNode: 2,
} as const;

/** Proxmox's own node-name rule; node names end up in request paths. */
export const PROXMOX_NODE_RE = /^[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?$/;
/** Proxmox's storage-id rule; storage ids end up in request paths and volume ids. */
export const PROXMOX_STORAGE_RE = /^[a-zA-Z][a-zA-Z0-9._-]*[a-zA-Z0-9]$/;

const vmid = () => int(PROXMOX_VMID_MIN, PROXMOX_VMID_MAX);

export const proxmoxMachineTypeSchema = z.strictObject({
  cores: int(1, 512),
  memoryMiB: int(16, 16 * 1024 * 1024),
  /** Grow the cloned boot disk to this size; absent keeps the template's size. */
  diskGiB: int(1, 65536).optional(),
});

/** The `proxmox:` block. */
export const proxmoxConfigSchema = z.strictObject({
  /** The API endpoint, https only (for example `https://pve1.lan:8006`). */
  url: url(['https']).refine(
    (s) => {
      try {
        const u = new URL(s);
        return u.search === '' && u.hash === '';
      } catch {
        return true; // already reported by url()
      }
    },
    { error: (iss) => `${formatValue(iss.input)} must not have a query or fragment` },
  ),
  /** File holding the API token as `user@realm!tokenid=secret`; read on every request. */
  tokenFile: filePath(),
  /** PEM CA bundle for the API's certificate. */
  caFile: filePath().optional(),
  /** Skips certificate verification: anyone on the path could read the token. */
  insecureSkipTLSVerify: z.boolean().default(PROXMOX_DEFAULTS.insecureSkipTLSVerify),
  /** The nodes proxies may be placed on; `placement.zone` picks one (optional with one node). */
  nodes: z
    .array(
      z.string().regex(PROXMOX_NODE_RE, {
        error: (iss) => `${formatValue(iss.input)} is not a valid Proxmox node name`,
      }),
    )
    .min(1)
    .superRefine((nodes, ctx) => uniqueStrings(nodes, ctx, 'node'), ALWAYS),
  /**
   * Storage for the seed ISOs. No default on purpose: the token needs `Datastore.Allocate`
   * there, so the admin names it.
   */
  isoStorage: z.string().regex(PROXMOX_STORAGE_RE, {
    error: (iss) => `${formatValue(iss.input)} is not a valid Proxmox storage id`,
  }),
  /** Rewrites net0 onto this bridge; absent keeps the template's NIC. */
  bridge: interfaceName().optional(),
  vlanTag: int(1, 4094).optional(),
  /** VMIDs the allocator probes; shared with humans, so keep it clear of hand-made VMs. */
  vmidRange: range(PROXMOX_VMID_MIN, PROXMOX_VMID_MAX).default(() => ({ ...PROXMOX_DEFAULTS.vmidRange })),
  requestTimeoutSeconds: int(1, 3600).default(PROXMOX_DEFAULTS.requestTimeoutSeconds),
  installGuestAgent: z.boolean().default(PROXMOX_DEFAULTS.installGuestAgent),
  /** Parallel clones on one node fail on storage locks; this bounds them. */
  maxParallelClonesPerNode: int(1, 64).default(PROXMOX_DEFAULTS.maxParallelClonesPerNode),
  /** `placement.image` keys to template VMIDs. */
  templates: catalogue(vmid(), 'template', 1),
  machineTypes: catalogue(proxmoxMachineTypeSchema, 'machine type', 1),
});

export type ProxmoxConfig = z.output<typeof proxmoxConfigSchema>;
export type ProxmoxConfigInput = z.input<typeof proxmoxConfigSchema>;
export type ProxmoxMachineType = z.output<typeof proxmoxMachineTypeSchema>;
