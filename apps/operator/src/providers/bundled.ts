import { ProviderRegistry } from '@egress-proxies/contract';
import { gcpProviderFactory } from '@egress-proxies/provider-gcp';
import { kubernetesProviderFactory } from '@egress-proxies/provider-kubernetes';
import { kvmProviderFactory } from '@egress-proxies/provider-kvm';
import { kvm2ProviderFactory } from '@egress-proxies/provider-kvm2';
import { localProviderFactory } from '@egress-proxies/provider-local';
import { proxmoxProviderFactory } from '@egress-proxies/provider-proxmox';

/**
 * The provider factories this build of the operator bundles, by config type. A config entry of
 * a type not registered here is refused at load with the registered types named.
 */
export function bundledRegistry(): ProviderRegistry {
  return new ProviderRegistry()
    .register(gcpProviderFactory)
    .register(proxmoxProviderFactory)
    .register(kubernetesProviderFactory)
    .register(localProviderFactory)
    .register(kvm2ProviderFactory)
    .register(kvmProviderFactory);
}
