import type { ProviderFactory } from '@egress-proxies/contract';
import { ProviderRegistry } from '@egress-proxies/provider-utils';

/** Imports one bundled provider package and returns its factory. */
export type FactoryImport = () => Promise<ProviderFactory>;

/**
 * The provider packages this build of the operator bundles, by config type, each imported only
 * when a config names its type: starting with one provider configured loads only that one.
 */
export const BUNDLED_PROVIDERS: Readonly<Record<string, FactoryImport>> = Object.freeze({
  gcp: async () => (await import('@egress-proxies/provider-gcp')).gcpProviderFactory as ProviderFactory,
  proxmox: async () =>
    (await import('@egress-proxies/provider-proxmox')).proxmoxProviderFactory as ProviderFactory,
  kubernetes: async () =>
    (await import('@egress-proxies/provider-kubernetes')).kubernetesProviderFactory as ProviderFactory,
  local: async () => (await import('@egress-proxies/provider-local')).localProviderFactory as ProviderFactory,
  kvm2: async () => (await import('@egress-proxies/provider-kvm2')).kvm2ProviderFactory as ProviderFactory,
  kvm: async () => (await import('@egress-proxies/provider-kvm')).kvmProviderFactory as ProviderFactory,
});

/**
 * A registry of the bundled factories, imported now: all of them, or those of `types`. A config
 * entry of a type not registered is refused at load with the registered types named.
 */
export async function bundledRegistry(
  types: readonly string[] = Object.keys(BUNDLED_PROVIDERS),
): Promise<ProviderRegistry> {
  const registry = new ProviderRegistry();
  for (const type of new Set(types)) {
    const load = Object.hasOwn(BUNDLED_PROVIDERS, type) ? BUNDLED_PROVIDERS[type] : undefined;
    if (load) registry.register(await load());
  }
  return registry;
}
