import { defineProviderFactory, type Kvm2Config, type Kvm2ConfigInput } from '@egress-proxies/contract';
import { KvmFamilyProvider, type KvmProviderOptions } from '@egress-proxies/kvm-common';
import { kvm2Flavour } from './flavour.js';

export { kvm2ConfigSchema } from '@egress-proxies/contract';
export { KvmCheckReason as Kvm2CheckReason, KvmErrorCode as Kvm2ErrorCode } from '@egress-proxies/kvm-common';
export { kvm2Flavour } from './flavour.js';
export { kvm2Profile } from './profile.js';
export type { Kvm2Config, Kvm2ConfigInput };
export type Kvm2ProviderOptions = KvmProviderOptions;
export type Kvm2Provider = KvmFamilyProvider;

/**
 * Builds a kvm2 provider from a `kvm2:` block (validated here; messages say `kvm2.<field>`).
 * Never dials: the first connection is made by the first call that needs the host.
 */
export function createKvm2Provider(
  config: Kvm2ConfigInput | Kvm2Config,
  options: Kvm2ProviderOptions,
): Kvm2Provider {
  return new KvmFamilyProvider(kvm2Flavour, config, options);
}

/** The registry entry: `registry.register(kvm2ProviderFactory)`. */
export const kvm2ProviderFactory = defineProviderFactory('kvm2', (config, context) => {
  const provider = createKvm2Provider(config, {
    name: context.name,
    ...(context.logger ? { logger: context.logger } : {}),
  });
  return { provider, checker: provider };
});
