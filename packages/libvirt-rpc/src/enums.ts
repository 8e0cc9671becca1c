// Flag and enum values from libvirt 9.0's public headers, for the typed methods.

/** virConnectFlags for connectOpen. */
export const ConnectFlags = { NONE: 0, RO: 1, NO_ALIASES: 2 } as const;

/** virDomainState */
export const DomainState = {
  NOSTATE: 0,
  RUNNING: 1,
  BLOCKED: 2,
  PAUSED: 3,
  SHUTDOWN: 4,
  SHUTOFF: 5,
  CRASHED: 6,
  PMSUSPENDED: 7,
} as const;

/** virDomainShutoffReason */
export const DomainShutoffReason = {
  UNKNOWN: 0,
  SHUTDOWN: 1,
  DESTROYED: 2,
  CRASHED: 3,
  MIGRATED: 4,
  SAVED: 5,
  FAILED: 6,
  FROM_SNAPSHOT: 7,
  DAEMON: 8,
} as const;

/** virDomainRunningReason */
export const DomainRunningReason = {
  UNKNOWN: 0,
  BOOTED: 1,
  MIGRATED: 2,
  RESTORED: 3,
  FROM_SNAPSHOT: 4,
  UNPAUSED: 5,
  MIGRATION_CANCELED: 6,
  SAVE_CANCELED: 7,
  WAKEUP: 8,
  CRASHED: 9,
  POSTCOPY: 10,
} as const;

/** virDomainUndefineFlagsValues */
export const DomainUndefineFlags = {
  MANAGED_SAVE: 0x1,
  SNAPSHOTS_METADATA: 0x2,
  NVRAM: 0x4,
  KEEP_NVRAM: 0x8,
  CHECKPOINTS_METADATA: 0x10,
  TPM: 0x20,
  KEEP_TPM: 0x40,
} as const;

/** virDomainDestroyFlagsValues */
export const DomainDestroyFlags = { DEFAULT: 0, GRACEFUL: 0x1, REMOVE_LOGS: 0x2 } as const;

/** virDomainDefineFlags */
export const DomainDefineFlags = { VALIDATE: 0x1 } as const;

/** virDomainCreateFlags */
export const DomainCreateFlags = {
  NONE: 0,
  START_PAUSED: 0x1,
  AUTODESTROY: 0x2,
  BYPASS_CACHE: 0x4,
  FORCE_BOOT: 0x8,
  VALIDATE: 0x10,
} as const;

/** virDomainXMLFlags for domainGetXMLDesc. */
export const DomainXMLFlags = { SECURE: 0x1, INACTIVE: 0x2, UPDATE_CPU: 0x4, MIGRATABLE: 0x8 } as const;

/** virDomainMetadataType */
export const DomainMetadataType = { DESCRIPTION: 0, TITLE: 1, ELEMENT: 2 } as const;

/** virDomainModificationImpact (metadata flags). */
export const DomainModificationImpact = { AFFECT_CURRENT: 0, AFFECT_LIVE: 1, AFFECT_CONFIG: 2 } as const;

/** virDomainInterfaceAddressesSource */
export const DomainInterfaceAddressesSource = { LEASE: 0, AGENT: 1, ARP: 2 } as const;

/** virIPAddrType */
export const IPAddrType = { IPV4: 0, IPV6: 1 } as const;

/** virDomainShutdownFlagValues (also used by reboot). */
export const DomainShutdownFlags = {
  DEFAULT: 0,
  ACPI_POWER_BTN: 0x1,
  GUEST_AGENT: 0x2,
  INITCTL: 0x4,
  SIGNAL: 0x8,
  PARAVIRT: 0x10,
} as const;

/** virConnectListAllDomainsFlags */
export const ConnectListAllDomainsFlags = {
  ACTIVE: 0x1,
  INACTIVE: 0x2,
  PERSISTENT: 0x4,
  TRANSIENT: 0x8,
  RUNNING: 0x10,
  PAUSED: 0x20,
  SHUTOFF: 0x40,
  OTHER: 0x80,
  MANAGEDSAVE: 0x100,
  NO_MANAGEDSAVE: 0x200,
  AUTOSTART: 0x400,
  NO_AUTOSTART: 0x800,
  HAS_SNAPSHOT: 0x1000,
  NO_SNAPSHOT: 0x2000,
  HAS_CHECKPOINT: 0x4000,
  NO_CHECKPOINT: 0x8000,
} as const;

/** virConnectListAllStoragePoolsFlags */
export const ConnectListAllStoragePoolsFlags = {
  INACTIVE: 0x1,
  ACTIVE: 0x2,
  PERSISTENT: 0x4,
  TRANSIENT: 0x8,
  AUTOSTART: 0x10,
  NO_AUTOSTART: 0x20,
  DIR: 0x40,
  FS: 0x80,
} as const;

/** virStoragePoolState */
export const StoragePoolState = {
  INACTIVE: 0,
  BUILDING: 1,
  RUNNING: 2,
  DEGRADED: 3,
  INACCESSIBLE: 4,
} as const;

/** virStorageVolType */
export const StorageVolType = { FILE: 0, BLOCK: 1, DIR: 2, NETWORK: 3, NETDIR: 4, PLOOP: 5 } as const;

/** virStorageVolCreateFlags */
export const StorageVolCreateFlags = { PREALLOC_METADATA: 0x1, REFLINK: 0x2, VALIDATE: 0x4 } as const;

/** virStorageVolDeleteFlags */
export const StorageVolDeleteFlags = { NORMAL: 0, ZEROED: 0x1, WITH_SNAPSHOTS: 0x2 } as const;

/** virStorageVolUploadFlags / virStorageVolDownloadFlags */
export const StorageVolStreamFlags = { SPARSE_STREAM: 0x1 } as const;
