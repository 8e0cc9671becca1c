import {
  createKvmFamilyProvider,
  type KvmFamilyProvider,
  type KvmProviderOptions,
} from '@egress-proxies/kvm-common';
import type { Kvm2ConfigInput } from './config.js';
import { kvm2Flavour } from './flavour.js';

export type Kvm2ProviderOptions = KvmProviderOptions;

/** A kvm2 provider entry: the contract's Provider and its Checker in one object (with `config`). */
export type Kvm2Provider = KvmFamilyProvider;

/**
 * Builds a kvm2 provider from a `kvm2:` block (validated here; a bad one throws the one config
 * error, lines under `kvm2.`). Never dials: the first connection is made by the first call
 * that needs the host. After `close()` every call is refused with `PROVIDER_CLOSED`.
 */
export function createKvm2Provider(config: Kvm2ConfigInput, options: Kvm2ProviderOptions = {}): Kvm2Provider {
  return createKvmFamilyProvider(kvm2Flavour, config, options);
}
