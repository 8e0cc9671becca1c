import { type GcpConfig, type GcpConfigInput, parseProviderBlock } from '@egress-proxies/contract';
import { RESOURCE_NAME_RE, regionOf } from './names.js';

export type { GcpConfig, GcpConfigInput };

export { RESOURCE_NAME_RE };

/** The validated `gcp` block in the shape the provider uses. */
export interface ResolvedGcpConfig {
  project: string;
  /** The Compute API base URL, when the config names one. */
  endpoint: string | undefined;
  /** `global/networks/<name>`, or the resource path or URL as configured. */
  network: string;
  /** The configured subnetwork: a name (resolved per zone) or a resource path. */
  subnetwork: string | undefined;
  networkTag: string;
  diskSizeGb: number;
  serviceAccount: string | undefined;
  ipMode: 'external' | 'internal';
  firewall: { enabled: boolean; sourceRanges: string[] };
  labels: Record<string, string>;
  /** The zones instances may be placed in; any zone when absent. */
  zones: string[] | undefined;
  /** `placement.machineType` key -> GCE machine type; names pass through when absent. */
  machineTypes: Record<string, string> | undefined;
  /** `placement.image` key -> image path; paths pass through when absent. */
  images: Record<string, string> | undefined;
  /** The regions of the configured zones, for the Checker's quota report. */
  regions: string[];
}

/**
 * Validates a `gcp` block with the contract's schema (the one the operator's providers file
 * uses) and resolves it. Every problem is one Permanent `INVALID_CONFIG` error listing each bad
 * key with its path and value.
 */
export function parseGcpConfig(input: unknown): ResolvedGcpConfig {
  const c: GcpConfig = parseProviderBlock('gcp', input);
  return {
    project: c.project,
    endpoint: c.endpoint,
    network: c.network.includes('/') ? c.network : `global/networks/${c.network}`,
    subnetwork: c.subnetwork,
    networkTag: c.networkTag,
    diskSizeGb: c.diskSizeGb,
    serviceAccount: c.serviceAccount,
    ipMode: c.ipMode,
    firewall: { enabled: c.firewall.enabled, sourceRanges: [...c.firewall.sourceRanges] },
    labels: { ...c.labels },
    zones: c.zones ? [...c.zones] : undefined,
    machineTypes: c.machineTypes ? { ...c.machineTypes } : undefined,
    images: c.images ? { ...c.images } : undefined,
    regions: [...new Set((c.zones ?? []).map(regionOf))],
  };
}

/** The subnetwork for an instance in `zone`: a configured name becomes the zone's regional path. */
export function subnetworkFor(cfg: ResolvedGcpConfig, zone: string): string | undefined {
  if (!cfg.subnetwork) return undefined;
  return cfg.subnetwork.includes('/')
    ? cfg.subnetwork
    : `regions/${regionOf(zone)}/subnetworks/${cfg.subnetwork}`;
}

/** True when the config names no zones (any zone) or names this one. */
export function zoneConfigured(cfg: ResolvedGcpConfig, zone: string): boolean {
  return cfg.zones === undefined || cfg.zones.includes(zone);
}
