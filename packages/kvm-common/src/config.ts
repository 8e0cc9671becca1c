import { ErrorCode, permanentError } from '@egress-proxies/contract';
import {
  absolutePath,
  catalogue,
  closest,
  egressPlanSchema,
  filePath,
  hostPort,
  type Infer,
  type InferInput,
  identifier,
  interfaceName,
  parseConfig,
  s,
  sha256Hex,
  uniqueStrings,
  url,
} from '@egress-proxies/provider-utils';

/** Defaults of the kvm and kvm2 blocks, exported so docs and tests quote one source. */
export const KVM_DEFAULTS = {
  diskSizeGb: 10,
  insecureIgnoreHostKey: false,
  installGuestAgent: true,
  domainType: 'kvm',
  imageFormat: 'qcow2',
  imageFirmware: 'uefi',
  socket: '/var/run/libvirt/libvirt-sock',
  pool: 'default',
} as const;

/**
 * One cloud image. The key becomes part of the base volume name (`base-<key>.qcow2`), which is
 * why catalogue keys are identifiers.
 */
export const kvmImageSchema = s.object({
  /** http(s) URL of a cloud image; downloaded into the host's pool on first use. */
  url: url(['http', 'https']),
  /** Expected digest; verified after download, and a change triggers a re-download. */
  sha256: sha256Hex().optional(),
  format: s.enum(['qcow2', 'raw']).default(KVM_DEFAULTS.imageFormat),
  /** UEFI by default: some cloud images hang in GRUB under BIOS with only a serial console. */
  firmware: s.enum(['uefi', 'bios']).default(KVM_DEFAULTS.imageFirmware),
});

export const kvmMachineTypeSchema = s.object({
  vcpus: s.int(1, 1024),
  memoryMiB: s.int(64, 16 * 1024 * 1024),
});

/** One hypervisor reached over SSH; `name` is the `placement.zone` that selects it. */
export const kvmHostSchema = s.object({
  /** Unique; a segment of the provider ID `hosts/<name>/domains/<instance>`. */
  name: identifier('host name'),
  /** SSH endpoint, `host:port`. */
  address: hostPort(),
  /** SSH user, a member of the host's `libvirt` group. */
  user: s.string().pattern(/^[A-Za-z_][A-Za-z0-9_.-]{0,31}$/, 'user name'),
  /** The libvirt socket path on the host. */
  socket: absolutePath('absolute socket path').default(KVM_DEFAULTS.socket),
  /** Storage pool for base images, overlays and seed ISOs. */
  pool: identifier('storage pool name').default(KVM_DEFAULTS.pool),
  /** Host bridge for the VM's NIC. */
  bridge: interfaceName(),
  /**
   * The egress plan (a key of `egressPlans`) whose addresses this host's VMs get, delivered as a
   * static network config; without one, VMs take DHCP on the bridge and share the host's egress.
   */
  egressPlan: identifier('egress plan name').optional(),
});

/**
 * The `kvm:` and `kvm2:` blocks (one shape, so an entry moves between the two types by renaming
 * its type and block key).
 */
export const kvmConfigSchema = s
  .object({
    /** Private key used for every host. */
    sshKeyFile: filePath(),
    /** OpenSSH known_hosts; required unless `insecureIgnoreHostKey`. */
    knownHostsFile: filePath().optional(),
    /** Skips host-key verification: a man in the middle could pose as the hypervisor. */
    insecureIgnoreHostKey: s.boolean().default(KVM_DEFAULTS.insecureIgnoreHostKey),
    /** Capacity of each VM's overlay disk. */
    diskSizeGb: s.int(1, 65536).default(KVM_DEFAULTS.diskSizeGb),
    /** Cloud-init vendor-data placed on every seed next to the Proxy's user-data. */
    vendorData: s.string().optional(),
    /** Adds the vendor-data script that installs qemu-guest-agent (used for address discovery). */
    installGuestAgent: s.boolean().default(KVM_DEFAULTS.installGuestAgent),
    /** `qemu` runs without hardware virtualisation (nested or CI hosts without /dev/kvm). */
    domainType: s.enum(['kvm', 'qemu']).default(KVM_DEFAULTS.domainType),
    images: catalogue(kvmImageSchema, 'image').default(() => ({})),
    machineTypes: catalogue(kvmMachineTypeSchema, 'machine type', 1),
    /** Address plans routed to a host's bridge, named by `hosts[].egressPlan` (docs/guides/egress-plans.md). */
    egressPlans: catalogue(egressPlanSchema, 'egress plan').default(() => ({})),
    hosts: s
      .array(kvmHostSchema, { min: 1 })
      .check((hosts, ctx) => uniqueStrings(hosts, ctx, 'host name', 'name')),
  })
  .check((c, ctx) => {
    if (c.insecureIgnoreHostKey !== true && c.knownHostsFile === undefined) {
      ctx.issue('required unless insecureIgnoreHostKey is true', ['knownHostsFile']);
    }
    checkPlanReferences(c, ctx);
  });

/**
 * Every named plan exists, and no two hosts share one: a plan's block is routed to one host's
 * bridge, and its allocations are read from that host's marks only.
 */
function checkPlanReferences(
  c: { hosts?: unknown; egressPlans?: unknown },
  ctx: { issue(message: string, path?: readonly (string | number)[]): void },
): void {
  if (!Array.isArray(c.hosts)) return;
  const plans = c.egressPlans && typeof c.egressPlans === 'object' ? Object.keys(c.egressPlans) : [];
  const usedBy = new Map<string, string>();
  c.hosts.forEach((h: unknown, i) => {
    const host = h as { name?: unknown; egressPlan?: unknown } | null;
    const plan = host?.egressPlan;
    if (typeof plan !== 'string') return;
    if (!plans.includes(plan)) {
      const near = closest(plan, plans);
      ctx.issue(
        `egress plan ${JSON.stringify(plan)} is not in egressPlans (${plans.length > 0 ? `configured: ${plans.join(', ')}` : 'none configured'})${near ? `; did you mean ${JSON.stringify(near)}?` : ''}`,
        ['hosts', i, 'egressPlan'],
      );
      return;
    }
    const other = usedBy.get(plan);
    if (other !== undefined) {
      ctx.issue(
        `egress plan ${JSON.stringify(plan)} is already used by host ${JSON.stringify(other)}; a plan's block is routed to one host, so give each host its own plan`,
        ['hosts', i, 'egressPlan'],
      );
    } else usedBy.set(plan, typeof host?.name === 'string' ? host.name : `hosts[${i}]`);
  });
}

export type KvmConfig = Infer<typeof kvmConfigSchema>;
export type KvmConfigInput = InferInput<typeof kvmConfigSchema>;
export type KvmImage = Infer<typeof kvmImageSchema>;
export type KvmMachineType = Infer<typeof kvmMachineTypeSchema>;
export type KvmHost = Infer<typeof kvmHostSchema>;

/**
 * Validates a `kvm:` or `kvm2:` block and fills the defaults. A bad block is the one config
 * error (Permanent `INVALID_CONFIG`), one line per bad field under the block name, for example
 * `kvm2.hosts[0].bridge: ...`.
 */
export function parseKvmConfig(type: 'kvm' | 'kvm2', input: unknown, provider?: string): KvmConfig {
  return parseConfig(kvmConfigSchema, input, { type, provider });
}

/** Splits `host:port` (IPv6 in brackets); the port defaults to 22. */
export function splitAddress(address: string): { host: string; port: number } {
  const m = /^\[([^\]]+)\](?::(\d+))?$/.exec(address) ?? /^([^:]+)(?::(\d+))?$/.exec(address);
  if (!m)
    throw permanentError(`host address ${JSON.stringify(address)} is not host:port`, {
      code: ErrorCode.InvalidConfig,
    });
  return { host: m[1]!, port: m[2] ? Number(m[2]) : 22 };
}
