import { defineProviderFactory, type KvmConfig, type KvmConfigInput } from '@egress-proxies/contract';
import { KvmFamilyProvider, type KvmProviderOptions } from '@egress-proxies/kvm-common';
import { kvmFlavour } from './flavour.js';

export { kvmConfigSchema } from '@egress-proxies/contract';
export { KvmCheckReason, KvmErrorCode, type KvmProviderOptions } from '@egress-proxies/kvm-common';
export { kvmFlavour } from './flavour.js';
export { kvmProfile } from './profile.js';
export type { KvmConfig, KvmConfigInput };
export type KvmProvider = KvmFamilyProvider;

/**
 * Builds a kvm provider from a `kvm:` block (validated here; messages say `kvm.<field>`).
 * Never dials: the first connection is made by the first call that needs the host.
 */
export function createKvmProvider(
  config: KvmConfigInput | KvmConfig,
  options: KvmProviderOptions,
): KvmProvider {
  return new KvmFamilyProvider(kvmFlavour, config, options);
}

/** The registry entry: `registry.register(kvmProviderFactory)`. */
export const kvmProviderFactory = defineProviderFactory('kvm', (config, context) => {
  const provider = createKvmProvider(config, {
    name: context.name,
    ...(context.logger ? { logger: context.logger } : {}),
  });
  return { provider, checker: provider };
});
