export {
  BACKEND_METHODS,
  type BackendCallOptions,
  type BackendMethod,
  type Dialer,
  type Domain,
  type DomainInterface,
  type DomainStateResult,
  type KvmBackend,
  type StoragePool,
  type StoragePoolInfo,
  type StorageVol,
  type StorageVolInfo,
} from './backend.js';
export { checkReason, KvmCheckReason } from './check.js';
export {
  KVM_DEFAULTS,
  type KvmConfig,
  type KvmConfigInput,
  type KvmHost,
  type KvmImage,
  type KvmMachineType,
  kvmConfigSchema,
  kvmHostSchema,
  kvmImageSchema,
  kvmMachineTypeSchema,
  parseKvmConfig,
  splitAddress,
} from './config.js';
export { abortPromise, detachSignal, race } from './detach.js';
export { type DomainSpec, domainXml } from './domain-xml.js';
export { classify, hasCode, KvmErrorCode, libvirtFields, type Phase } from './errors.js';
export type { AddressSource, KvmFlavour } from './flavour.js';
export { HostTable, type HostTableOptions } from './hosts.js';
export { httpFetcher, httpStatusError, type ImageFetcher, type ImageResponse } from './http-fetcher.js';
export { formatProviderId, formatSecondaryId, parseProviderId, parseSecondaryId } from './id.js';
export { checkPoolSpace, neededBytes, POOL_HEADROOM_BYTES } from './image.js';
export { type Budgets, DEFAULT_BUDGETS, LibvirtBackend } from './libvirt-backend.js';
export {
  KVM_METADATA_NAMESPACE,
  KVM_METADATA_PREFIX,
  KVM2_METADATA_NAMESPACE,
  KVM2_METADATA_PREFIX,
  METADATA_ATTRIBUTES,
  METADATA_ELEMENT,
} from './marks.js';
export { type Mark, metadataElement, parseMark } from './metadata.js';
export {
  baseVolumeName,
  markerVolumeName,
  overlayName,
  type ResolvedImage,
  secondaryOf,
  seedName,
  urlImageKey,
} from './names.js';
export { type ObserveOptions, OPTIONS_INDEX, observeBackend } from './observe.js';
export { type ResolvedPlacement, resolvePlacement } from './placement.js';
export { kvmFamilyProfile } from './profile.js';
export { createKvmFamilyProvider, type KvmFamilyProvider, type KvmProviderOptions } from './provider.js';
export { loadCredentials, type SshCredentials, sshDialer } from './ssh-dialer.js';
export { DOMAIN_STATE_NAMES, firstIPv4, isRoutableIPv4, isUp, mapState, stateName } from './state.js';
export { overlayVolumeXml, parseVolumeXml, rawVolumeXml } from './volume-xml.js';
export { escapeXml, parseAttributes, unescapeXml } from './xml-text.js';
