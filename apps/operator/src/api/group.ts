/** The API group and version every resource of the operator lives in. */
export const GROUP = 'egress-proxies.dev';
export const VERSION = 'v1alpha1';
export const API_VERSION = `${GROUP}/${VERSION}`;

/** The finalizer on every Managed Proxy: the instance is deleted before the Proxy goes. */
export const FINALIZER = `${GROUP}/instance`;
/**
 * Set to "true" on a Proxy being deleted to drop the finalizer without deleting the instance
 * (the provider is gone for good, or a human cleaned up by hand). Orphan GC collects a leftover.
 */
export const FORCE_DELETE_ANNOTATION = `${GROUP}/force-remove-finalizer`;

export const PROXY = { kind: 'Proxy', plural: 'proxies', singular: 'proxy', shortNames: ['px'] } as const;
export const PROVIDER_HEALTH = {
  kind: 'ProviderHealth',
  plural: 'providerhealths',
  singular: 'providerhealth',
  shortNames: ['ph'],
} as const;
