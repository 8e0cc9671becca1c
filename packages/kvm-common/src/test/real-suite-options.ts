import type { KvmConfigInput } from '../config.js';
import type { KvmFlavour } from '../flavour.js';
import type { KvmFamilyProvider, KvmProviderOptions } from '../provider.js';
import type { RealHostEnv } from './real-helpers.js';

/**
 * What the shared real-backend suites need from the libvirt test environment. Structural, so this
 * package does not depend on the environment package; its `LibvirtTestEnv` fits.
 */
export interface RealSuiteEnv extends RealHostEnv {
  ssh: RealHostEnv['ssh'] & {
    /** Kills established SSH sessions, keeping the listener. */
    dropConnections(): Promise<void>;
  };
  /** A bridge on the host for the VMs' NICs (your own host); a local one is made otherwise. */
  bridge?: string;
  /** A key pair the sshd does not accept. */
  otherUserKey: { privateKey: Buffer; privateKeyPath: string };
  /** known_hosts naming the sshd's address with a different host key. */
  wrongKnownHostsPath: string;
  /** A pool on a tmpfs of `bytes` bytes. */
  createSmallPool(bytes: number): Promise<{ name: string }>;
  /** Restarts libvirtd once no other suite holds it. */
  restartLibvirtd(opts?: { waitTimeoutMs?: number }): Promise<void>;
  teardown(): Promise<void>;
}

/** One flavour's entry into the shared suites. */
export interface RealSuiteOptions {
  /** The flavour under test: its type names the suites, its span prefix and namespace are checked. */
  flavour: KvmFlavour;
  /** The package's own factory (so the suites exercise what the package exports). */
  createProvider(config: KvmConfigInput, options: KvmProviderOptions): KvmFamilyProvider;
  /** Starts the environment: a real libvirtd behind a real private sshd, with its own pool. */
  startEnv(): Promise<RealSuiteEnv>;
}
