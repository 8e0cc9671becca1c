import * as z from 'zod';
import { INSTALLATION_LABEL, MANAGED_LABEL, UID_LABEL } from '../marks.js';
import { ALWAYS, catalogue, cidr, int, pattern, uniqueStrings, url } from './fields.js';
import { formatValue } from './format-value.js';

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
  z.string().refine((s) => GCE_NAME_RE.test(s) || re.test(s), {
    error: (iss) => `${formatValue(iss.input)} is not a valid ${what} name or resource path`,
  });

const labels = () =>
  z
    .record(
      z.string().regex(GCE_LABEL_KEY_RE, {
        error: (iss) =>
          `${formatValue(iss.input)} is not a valid GCE label key (lower-case letter first, then [a-z0-9_-], at most 63)`,
      }),
      z.string().regex(GCE_LABEL_VALUE_RE, {
        error: (iss) => `${formatValue(iss.input)} is not a valid GCE label value ([a-z0-9_-], at most 63)`,
      }),
    )
    .superRefine((l, ctx) => {
      for (const key of Object.keys(l)) {
        if ((MARK_LABELS as readonly string[]).includes(key)) {
          ctx.addIssue({
            code: 'custom',
            path: [key],
            input: key,
            message: `${formatValue(key)} is an ownership mark set by the provider; choose another key`,
          });
        }
      }
      const n = Object.keys(l).length;
      if (n > GCP_MAX_USER_LABELS) {
        ctx.addIssue({
          code: 'custom',
          input: l,
          message: `at most ${GCP_MAX_USER_LABELS} labels (GCE allows 64, the marks use ${MARK_LABELS.length}), got ${n}`,
        });
      }
    }, ALWAYS);

/**
 * The `gcp:` block. Unlike the hypervisor providers, GCE has its own catalogue: by default
 * `placement.zone`, `placement.machineType` and `placement.image` are passed through as GCE
 * names (each required by create, checked before any request). The optional `zones`,
 * `machineTypes` and `images` narrow that: with `zones` set, a zone outside the list is refused
 * (and with exactly one, placement may omit it); with `machineTypes` or `images` set, the
 * placement value must be a key of the catalogue and is resolved through it.
 */
export const gcpConfigSchema = z.strictObject({
  project: pattern(GCP_PROJECT_RE, 'GCP project id (6-30 of a-z, 0-9, "-"; starts with a letter)'),
  /**
   * The Compute API base URL (a Private Service Connect endpoint, a local proxy); the public
   * endpoint when absent. Plain http only to a loopback address, since requests carry tokens.
   */
  endpoint: url(['https', 'http'])
    .refine(
      (s) => {
        const u = URL.canParse(s) ? new URL(s) : undefined;
        return u?.protocol !== 'http:' || ['127.0.0.1', '[::1]', 'localhost'].includes(u.hostname);
      },
      { error: (iss) => `${formatValue(iss.input)} uses http:// to a non-loopback host; use https://` },
    )
    .optional(),
  network: nameOrPath(NETWORK_RE, 'network').default(GCP_DEFAULTS.network),
  subnetwork: nameOrPath(SUBNETWORK_RE, 'subnetwork').optional(),
  /** The network tag put on every instance, for the firewall rule. */
  networkTag: pattern(GCE_NAME_RE, 'network tag (RFC 1035 label)').default(GCP_DEFAULTS.networkTag),
  /** Boot disk size; GCE images need at least 10. */
  diskSizeGb: int(10, 65536).default(GCP_DEFAULTS.diskSizeGb),
  /** Service account email the instances run as; absent means none. */
  serviceAccount: z
    .string()
    .regex(/^(?:default|[^@\s]+@[^@\s]+\.[^@\s]+)$/, {
      error: (iss) => `${formatValue(iss.input)} is not a service account email (or "default")`,
    })
    .optional(),
  /** `external` gives each instance an ephemeral external IP; `internal` reports the VPC address. */
  ipMode: z.enum(['external', 'internal']).default(GCP_DEFAULTS.ipMode),
  /** A per-provider firewall rule for the proxy port, targeting `networkTag`. */
  firewall: z
    .strictObject({
      enabled: z.boolean().default(false),
      // Empty is accepted so a parsed block parses again unchanged (providers re-validate what
      // the operator already loaded); enabled still needs at least one range.
      sourceRanges: z
        .array(cidr())
        .superRefine((list, ctx) => uniqueStrings(list, ctx, 'CIDR'), ALWAYS)
        .optional(),
    })
    .superRefine((f, ctx) => {
      if (f.enabled === true && (f.sourceRanges === undefined || f.sourceRanges.length === 0)) {
        ctx.addIssue({
          code: 'custom',
          path: ['sourceRanges'],
          input: undefined,
          message: 'required when enabled is true (the CIDRs allowed to reach the proxy port)',
        });
      }
    }, ALWAYS)
    .transform((f) => ({ enabled: f.enabled, sourceRanges: f.sourceRanges ?? [] }))
    .default(() => ({ enabled: false, sourceRanges: [] })),
  /** Extra labels on every instance. */
  labels: labels().default(() => ({})),
  zones: z
    .array(pattern(GCE_ZONE_RE, 'GCE zone (for example europe-west3-a)'))
    .min(1)
    .superRefine((zs, ctx) => uniqueStrings(zs, ctx, 'zone'), ALWAYS)
    .optional(),
  /** `placement.machineType` keys to GCE machine types (`e2-small`, `e2-custom-2-4096`). */
  machineTypes: catalogue(pattern(GCE_NAME_RE, 'GCE machine type'), 'machine type', 1).optional(),
  /** `placement.image` keys to image paths (`projects/ubuntu-os-cloud/global/images/family/ubuntu-2404-lts-amd64`). */
  images: catalogue(
    z.string().regex(IMAGE_RE, {
      error: (iss) =>
        `${formatValue(iss.input)} is not an image path (projects/<project>/global/images/[family/]<name>)`,
    }),
    'image',
    1,
  ).optional(),
});

export type GcpConfig = z.output<typeof gcpConfigSchema>;
export type GcpConfigInput = z.input<typeof gcpConfigSchema>;
