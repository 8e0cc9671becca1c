import * as z from 'zod';
import {
  ALWAYS,
  absolutePath,
  catalogue,
  filePath,
  hostPort,
  identifier,
  int,
  interfaceName,
  sha256Hex,
  uniqueStrings,
  url,
} from './fields.js';
import { formatValue } from './format-value.js';

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
export const kvmImageSchema = z.strictObject({
  /** http(s) URL of a cloud image; downloaded into the host's pool on first use. */
  url: url(['http', 'https']),
  /** Expected digest; verified after download, and a change triggers a re-download. */
  sha256: sha256Hex().optional(),
  format: z.enum(['qcow2', 'raw']).default(KVM_DEFAULTS.imageFormat),
  /** UEFI by default: some cloud images hang in GRUB under BIOS with only a serial console. */
  firmware: z.enum(['uefi', 'bios']).default(KVM_DEFAULTS.imageFirmware),
});

export const kvmMachineTypeSchema = z.strictObject({
  vcpus: int(1, 1024),
  memoryMiB: int(64, 16 * 1024 * 1024),
});

/** One hypervisor reached over SSH; `name` is the `placement.zone` that selects it. */
export const kvmHostSchema = z.strictObject({
  /** Unique; a segment of the provider ID `hosts/<name>/domains/<instance>`. */
  name: identifier('host name'),
  /** SSH endpoint, `host:port`. */
  address: hostPort(),
  /** SSH user, a member of the host's `libvirt` group. */
  user: z.string().regex(/^[A-Za-z_][A-Za-z0-9_.-]{0,31}$/, {
    error: (iss) => `${formatValue(iss.input)} is not a valid user name`,
  }),
  /** The libvirt socket path on the host. */
  socket: absolutePath('absolute socket path').default(KVM_DEFAULTS.socket),
  /** Storage pool for base images, overlays and seed ISOs. */
  pool: identifier('storage pool name').default(KVM_DEFAULTS.pool),
  /** Host bridge for the VM's NIC. */
  bridge: interfaceName(),
});

/**
 * The `kvm:` and `kvm2:` blocks (one shape, so an entry moves between the two types by renaming
 * its type and block key).
 */
export const kvmConfigSchema = z
  .strictObject({
    /** Private key used for every host. */
    sshKeyFile: filePath(),
    /** OpenSSH known_hosts; required unless `insecureIgnoreHostKey`. */
    knownHostsFile: filePath().optional(),
    /** Skips host-key verification: a man in the middle could pose as the hypervisor. */
    insecureIgnoreHostKey: z.boolean().default(KVM_DEFAULTS.insecureIgnoreHostKey),
    /** Capacity of each VM's overlay disk. */
    diskSizeGb: int(1, 65536).default(KVM_DEFAULTS.diskSizeGb),
    /** Cloud-init vendor-data placed on every seed next to the Proxy's user-data. */
    vendorData: z.string().optional(),
    /** Adds the vendor-data script that installs qemu-guest-agent (used for address discovery). */
    installGuestAgent: z.boolean().default(KVM_DEFAULTS.installGuestAgent),
    /** `qemu` runs without hardware virtualisation (nested or CI hosts without /dev/kvm). */
    domainType: z.enum(['kvm', 'qemu']).default(KVM_DEFAULTS.domainType),
    images: catalogue(kvmImageSchema, 'image').default(() => ({})),
    machineTypes: catalogue(kvmMachineTypeSchema, 'machine type', 1),
    hosts: z
      .array(kvmHostSchema)
      .min(1)
      .superRefine((hosts, ctx) => uniqueStrings(hosts, ctx, 'host name', 'name'), ALWAYS),
  })
  .superRefine((c, ctx) => {
    if (c.insecureIgnoreHostKey !== true && c.knownHostsFile === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['knownHostsFile'],
        input: undefined,
        message: 'required unless insecureIgnoreHostKey is true',
      });
    }
  }, ALWAYS);

export type KvmConfig = z.output<typeof kvmConfigSchema>;
export type KvmConfigInput = z.input<typeof kvmConfigSchema>;
export type KvmImage = z.output<typeof kvmImageSchema>;
export type KvmMachineType = z.output<typeof kvmMachineTypeSchema>;
export type KvmHost = z.output<typeof kvmHostSchema>;

/** The `kvm2:` block: the same shape as `kvm:`. */
export const kvm2ConfigSchema = kvmConfigSchema;
export type Kvm2Config = KvmConfig;
export type Kvm2ConfigInput = KvmConfigInput;
