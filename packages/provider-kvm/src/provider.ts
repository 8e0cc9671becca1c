import {
  createKvmFamilyProvider,
  type KvmFamilyProvider,
  type KvmProviderOptions,
} from '@egress-proxies/kvm-common';
import type { KvmConfigInput } from './config.js';
import { kvmFlavour } from './flavour.js';

export type { KvmProviderOptions };

/** A kvm provider entry: the contract's Provider and its Checker in one object (with `config`). */
export type KvmProvider = KvmFamilyProvider;

/**
 * Builds a kvm provider from a `kvm:` block (validated here; a bad one throws the one config
 * error, lines under `kvm.`). Never dials: the first connection is made by the first call
 * that needs the host. After `close()` every call is refused with `PROVIDER_CLOSED`.
 */
export function createKvmProvider(config: KvmConfigInput, options: KvmProviderOptions = {}): KvmProvider {
  return createKvmFamilyProvider(kvmFlavour, config, options);
}
