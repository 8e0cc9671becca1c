import { INSTALLATION_LABEL, MANAGED_LABEL, UID_LABEL } from '@egress-proxies/contract';
import {
  catalogue,
  cidr,
  formatValue,
  type Infer,
  type InferInput,
  parseConfig,
  pattern,
  s,
  uniqueStrings,
} from '@egress-proxies/provider-utils';
import { RESOURCE_NAME_RE, regionOf } from './names.js';

export { RESOURCE_NAME_RE };

export const GCP_DEFAULTS = {
  network: 'default',
  networkTag: 'egress-proxy',
  diskSizeGb: 10,
  ipMode: 'external',
  firewall: { enabled: false, sourceRanges: [] as string[] },
} as const;

/** A project id (6 to 30 characters), optionally domain-scoped (`example.com:my-project`). */
export const GCP_PROJECT_RE = /^(?:[a-z][a-z0-9.-]*[a-z0-9]:)?[a-z][a-z0-9-]{4,28}[a-z0-9]$/;
/** A Compute Engine resource name (RFC 1035 label). */
export const GCE_NAME_RE = /^[a-z](?:[-a-z0-9]{0,61}[a-z0-9])?$/;
export const GCE_ZONE_RE = /^[a-z]+-[a-z]+[0-9]+-[a-z]$/;
const COMPUTE_PREFIX = '(?:https://(?:www|compute)\\.googleapis\\.com/compute/v1/)?';
const NETWORK_RE = new RegExp(
  `^${COMPUTE_PREFIX}projects/[^/]+/global/networks/[a-z](?:[-a-z0-9]{0,61}[a-z0-9])?$`,
);
const SUBNETWORK_RE = new RegExp(
  `^${COMPUTE_PREFIX}projects/[^/]+/regions/[a-z]+-[a-z]+[0-9]+/subnetworks/[a-z](?:[-a-z0-9]{0,61}[a-z0-9])?$`,
);
const IMAGE_RE = new RegExp(
  `^${COMPUTE_PREFIX}projects/[a-z0-9.:-]+/global/images/(?:family/)?[a-z](?:[-a-z0-9]{0,61}[a-z0-9])?$`,
);
/** GCE label keys and values (the lower-case ASCII subset of the documented rule). */
export const GCE_LABEL_KEY_RE = /^[a-z][a-z0-9_-]{0,62}$/;
export const GCE_LABEL_VALUE_RE = /^[a-z0-9_-]{0,63}$/;
/** GCE allows 64 labels per resource; the marks take three of them. */
const MARK_LABELS = [MANAGED_LABEL, UID_LABEL, INSTALLATION_LABEL] as const;
export const GCP_MAX_USER_LABELS = 64 - MARK_LABELS.length;

const nameOrPath = (re: RegExp, what: string) =>
  s.string().refine(
    (v) => GCE_NAME_RE.test(v) || re.test(v),
    (v) => `${formatValue(v)} is not a valid ${what} name or resource path`,
  );

const labels = () =>
  s
    .record(
      s
        .string()
        .pattern(GCE_LABEL_KEY_RE, 'GCE label key (lower-case letter first, then [a-z0-9_-], at most 63)'),
      s.string().refine(
        (v) => GCE_LABEL_VALUE_RE.test(v),
        (v) => `${formatValue(v)} is not a valid GCE label value ([a-z0-9_-], at most 63)`,
      ),
    )
    .check((l, ctx) => {
      for (const key of Object.keys(l)) {
        if ((MARK_LABELS as readonly string[]).includes(key)) {
          ctx.issue(`${formatValue(key)} is an ownership mark set by the provider; choose another key`, [
            key,
          ]);
        }
      }
      const n = Object.keys(l).length;
      if (n > GCP_MAX_USER_LABELS) {
        ctx.issue(
          `at most ${GCP_MAX_USER_LABELS} labels (GCE allows 64, the marks use ${MARK_LABELS.length}), got ${n}`,
        );
      }
    });

/**
 * The `gcp:` block. Unlike the hypervisor providers, GCE has its own catalogue: by default
 * `placement.zone`, `placement.machineType` and `placement.image` are passed through as GCE
 * names (each required by create, checked before any request). The optional `zones`,
 * `machineTypes` and `images` narrow that: with `zones` set, a zone outside the list is refused
 * (and with exactly one, placement may omit it); with `machineTypes` or `images` set, the
 * placement value must be a key of the catalogue and is resolved through it.
 */
export const gcpConfigSchema = s.object({
  project: pattern(GCP_PROJECT_RE, 'GCP project id (6-30 of a-z, 0-9, "-"; starts with a letter)'),
  network: nameOrPath(NETWORK_RE, 'network').default(GCP_DEFAULTS.network),
  subnetwork: nameOrPath(SUBNETWORK_RE, 'subnetwork').optional(),
  /** The network tag put on every instance, for the firewall rule. */
  networkTag: pattern(GCE_NAME_RE, 'network tag (RFC 1035 label)').default(GCP_DEFAULTS.networkTag),
  /** Boot disk size; GCE images need at least 10. */
  diskSizeGb: s.int(10, 65536).default(GCP_DEFAULTS.diskSizeGb),
  /** Service account email the instances run as; absent means none. */
  serviceAccount: s
    .string()
    .refine(
      (v) => /^(?:default|[^@\s]+@[^@\s]+\.[^@\s]+)$/.test(v),
      (v) => `${formatValue(v)} is not a service account email (or "default")`,
    )
    .optional(),
  /** `external` gives each instance an ephemeral external IP; `internal` reports the VPC address. */
  ipMode: s.enum(['external', 'internal']).default(GCP_DEFAULTS.ipMode),
  /** A per-provider firewall rule for the proxy port, targeting `networkTag`. */
  firewall: s
    .object({
      enabled: s.boolean().default(false),
      // Empty is accepted so a parsed block parses again unchanged (providers re-validate what
      // the operator already loaded); enabled still needs at least one range.
      sourceRanges: s
        .array(cidr())
        .check((list, ctx) => uniqueStrings(list, ctx, 'CIDR'))
        .default(() => []),
    })
    .check((f, ctx) => {
      if (f.enabled === true && (!Array.isArray(f.sourceRanges) || f.sourceRanges.length === 0)) {
        ctx.issue('required when enabled is true (the CIDRs allowed to reach the proxy port)', [
          'sourceRanges',
        ]);
      }
    })
    .default(() => ({ enabled: false, sourceRanges: [] })),
  /** Extra labels on every instance. */
  labels: labels().default(() => ({})),
  zones: s
    .array(pattern(GCE_ZONE_RE, 'GCE zone (for example europe-west3-a)'), { min: 1 })
    .check((zs, ctx) => uniqueStrings(zs, ctx, 'zone'))
    .optional(),
  /** `placement.machineType` keys to GCE machine types (`e2-small`, `e2-custom-2-4096`). */
  machineTypes: catalogue(pattern(GCE_NAME_RE, 'GCE machine type'), 'machine type', 1).optional(),
  /** `placement.image` keys to image paths (`projects/ubuntu-os-cloud/global/images/family/ubuntu-2404-lts-amd64`). */
  images: catalogue(
    s.string().refine(
      (v) => IMAGE_RE.test(v),
      (v) => `${formatValue(v)} is not an image path (projects/<project>/global/images/[family/]<name>)`,
    ),
    'image',
    1,
  ).optional(),
});

/** A validated `gcp:` block, defaults filled. */
export type GcpConfig = Infer<typeof gcpConfigSchema>;
/** A `gcp:` block as written in a config (defaulted fields optional). */
export type GcpConfigInput = InferInput<typeof gcpConfigSchema>;

/** The validated `gcp` block in the shape the provider uses. */
export interface ResolvedGcpConfig {
  project: string;
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
 * Validates a `gcp` block and resolves it. Every problem is the one config error (Permanent
 * `INVALID_CONFIG`) listing each bad key with its path and value.
 */
export function parseGcpConfig(input: unknown, provider?: string): ResolvedGcpConfig {
  const c: GcpConfig = parseConfig(gcpConfigSchema, input, { type: 'gcp', provider });
  return {
    project: c.project,
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
