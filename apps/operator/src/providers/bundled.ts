import { ProviderRegistry } from '@egress-proxies/contract';
import { gcpProviderFactory } from '@egress-proxies/provider-gcp';
import { proxmoxProviderFactory } from '@egress-proxies/provider-proxmox';

/**
 * The provider factories this build of the operator bundles, by config type. A config entry of
 * a type not registered here is refused at load with the registered types named.
 */
export function bundledRegistry(): ProviderRegistry {
  return new ProviderRegistry().register(gcpProviderFactory).register(proxmoxProviderFactory);
}
