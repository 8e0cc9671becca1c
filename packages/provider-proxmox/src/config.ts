import {
  catalogue,
  closest,
  egressPlanSchema,
  filePath,
  formatValue,
  type Infer,
  type InferInput,
  identifier,
  interfaceName,
  parseConfig,
  range,
  s,
  uniqueStrings,
  url,
} from '@egress-proxies/provider-utils';

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
export const NODE_RE = /^[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?$/;
/** Proxmox's storage-id rule; storage ids end up in request paths and volume ids. */
export const STORAGE_RE = /^[a-zA-Z][a-zA-Z0-9._-]*[a-zA-Z0-9]$/;

const vmid = () => s.int(PROXMOX_VMID_MIN, PROXMOX_VMID_MAX);

export const proxmoxMachineTypeSchema = s.object({
  cores: s.int(1, 512),
  memoryMiB: s.int(16, 16 * 1024 * 1024),
  /** Grow the cloned boot disk to this size; absent keeps the template's size. */
  diskGiB: s.int(1, 65536).optional(),
});

function hasQueryOrFragment(v: string): boolean {
  try {
    const u = new URL(v);
    return u.search !== '' || u.hash !== '';
  } catch {
    return false; // url() reported it already
  }
}

const planName = () => identifier('egress plan name');

/** The `proxmox:` block. */
export const proxmoxConfigSchema = s
  .object({
    /** The API endpoint, https only (for example `https://pve1.lan:8006`). */
    url: url(['https']).refine(
      (v) => !hasQueryOrFragment(v),
      (v) => `${formatValue(v)} must not have a query or fragment`,
    ),
    /** File holding the API token as `user@realm!tokenid=secret`; read on every request. */
    tokenFile: filePath(),
    /** PEM CA bundle for the API's certificate. */
    caFile: filePath().optional(),
    /** Skips certificate verification: anyone on the path could read the token. */
    insecureSkipTLSVerify: s.boolean().default(PROXMOX_DEFAULTS.insecureSkipTLSVerify),
    /** The nodes proxies may be placed on; `placement.zone` picks one (optional with one node). */
    nodes: s
      .array(s.string().pattern(NODE_RE, 'Proxmox node name'), { min: 1 })
      .check((nodes, ctx) => uniqueStrings(nodes, ctx, 'node')),
    /**
     * Storage for the seed ISOs. No default on purpose: the token needs `Datastore.Allocate`
     * there, so the admin names it.
     */
    isoStorage: s.string().pattern(STORAGE_RE, 'Proxmox storage id'),
    /** Rewrites net0 onto this bridge; absent keeps the template's NIC. */
    bridge: interfaceName().optional(),
    vlanTag: s.int(1, 4094).optional(),
    /** VMIDs the allocator probes; shared with humans, so keep it clear of hand-made VMs. */
    vmidRange: range(PROXMOX_VMID_MIN, PROXMOX_VMID_MAX).default(() => ({ ...PROXMOX_DEFAULTS.vmidRange })),
    requestTimeoutSeconds: s.int(1, 3600).default(PROXMOX_DEFAULTS.requestTimeoutSeconds),
    installGuestAgent: s.boolean().default(PROXMOX_DEFAULTS.installGuestAgent),
    /** Parallel clones on one node fail on storage locks; this bounds them. */
    maxParallelClonesPerNode: s.int(1, 64).default(PROXMOX_DEFAULTS.maxParallelClonesPerNode),
    /** `placement.image` keys to template VMIDs. */
    templates: catalogue(vmid(), 'template', 1),
    machineTypes: catalogue(proxmoxMachineTypeSchema, 'machine type', 1),
    /** Address plans routed to the bridge, named by `egressPlan` or `nodeEgressPlans`. */
    egressPlans: catalogue(egressPlanSchema, 'egress plan').default(() => ({})),
    /**
     * The plan (a key of `egressPlans`) every node's VMs get their egress from: the block routed
     * to the bridge they share. Without one (and no `nodeEgressPlans` entry), VMs take DHCP and
     * share the node's egress.
     */
    egressPlan: planName().optional(),
    /** Per node, a plan overriding `egressPlan`: for a block routed to one node only. */
    nodeEgressPlans: s
      .record(s.string().pattern(NODE_RE, 'Proxmox node name'), planName())
      .default(() => ({})),
  })
  .check((c, ctx) => checkPlanReferences(c, ctx));

/** Every plan name must be a configured plan; every node key one of `nodes`. */
function checkPlanReferences(
  c: { nodes?: unknown; egressPlans?: unknown; egressPlan?: unknown; nodeEgressPlans?: unknown },
  ctx: { issue(message: string, path?: readonly (string | number)[]): void },
): void {
  const plans = c.egressPlans && typeof c.egressPlans === 'object' ? Object.keys(c.egressPlans) : [];
  const known = (plan: unknown, path: (string | number)[]) => {
    if (typeof plan !== 'string' || plans.includes(plan)) return;
    const near = closest(plan, plans);
    ctx.issue(
      `egress plan ${JSON.stringify(plan)} is not in egressPlans (${plans.length > 0 ? `configured: ${plans.join(', ')}` : 'none configured'})${near ? `; did you mean ${JSON.stringify(near)}?` : ''}`,
      path,
    );
  };
  known(c.egressPlan, ['egressPlan']);
  const nodes = Array.isArray(c.nodes) ? c.nodes.filter((n): n is string => typeof n === 'string') : [];
  if (!c.nodeEgressPlans || typeof c.nodeEgressPlans !== 'object') return;
  for (const [node, plan] of Object.entries(c.nodeEgressPlans)) {
    if (!nodes.includes(node)) {
      ctx.issue(`${JSON.stringify(node)} is not one of nodes (${nodes.join(', ')})`, [
        'nodeEgressPlans',
        node,
      ]);
      continue;
    }
    known(plan, ['nodeEgressPlans', node]);
  }
}

/** The plan name a node's VMs allocate from, if any. */
export function planNameFor(cfg: ProxmoxConfig, node: string): string | undefined {
  return cfg.nodeEgressPlans[node] ?? cfg.egressPlan;
}

/** A validated `proxmox:` block, defaults filled. */
export type ProxmoxConfig = Infer<typeof proxmoxConfigSchema>;
/** A `proxmox:` block as written in a config (defaulted fields optional). */
export type ProxmoxConfigInput = InferInput<typeof proxmoxConfigSchema>;
export type ProxmoxMachineType = Infer<typeof proxmoxMachineTypeSchema>;
/** @deprecated the old name of `ProxmoxMachineType`. */
export type MachineType = ProxmoxMachineType;

/** Validates the `proxmox` block; a bad block is the one config error (Permanent `INVALID_CONFIG`). */
export function parseProxmoxConfig(input: unknown, provider?: string): ProxmoxConfig {
  return parseConfig(proxmoxConfigSchema, input, { type: 'proxmox', provider });
}
