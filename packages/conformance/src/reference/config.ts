import { ErrorCode, permanentError, Secret } from '@egress-proxies/contract';
import {
  compileEgressPlan,
  type EgressPlan,
  type EgressPlanConfig,
  egressPlanSchema,
  parseConfig,
  type Schema,
  s,
  uniqueStrings,
  url,
} from '@egress-proxies/provider-utils';

export interface ReferenceHostConfig {
  /** The host's name: the `zone` of a placement and a segment of every ID. */
  name: string;
  /** Where the host is reached (shown in Checker results). */
  address?: string;
  /** The storage pool for volumes; `default` when absent. */
  pool?: string;
}

export interface ReferenceMachineType {
  vcpus: number;
  memoryMiB: number;
  /** The overlay disk's size. */
  diskGiB: number;
}

export interface ReferenceImage {
  /** Where the base image is fetched from on first use (the in-memory backend only records it). */
  url: string;
  sizeGiB: number;
}

export interface ReferenceConfig {
  hosts: ReferenceHostConfig[];
  machineTypes: Record<string, ReferenceMachineType>;
  images: Record<string, ReferenceImage>;
  /** The credential every backend call carries. Never logged, never in an error. */
  token: string | Secret<string>;
  /** What `listByTag` does when a host cannot be listed; `fail-whole` when absent. */
  listPartial?: 'fail-whole' | 'omit-unreachable';
  /** How often a blocking create polls the domain state; 500 ms when absent. */
  pollIntervalMs?: number;
  /** How long a blocking create waits for the domain to run; 15 s when absent. */
  startTimeoutMs?: number;
  /**
   * An address plan routed to every host's bridge: each instance gets one address per family,
   * written into its seed's network-config and recorded in its mark. DHCP (a shared egress)
   * when absent.
   */
  egressPlan?: ReferenceEgressPlan;
}

/** A named egress plan (the name is what an exhausted plan's QuotaExceeded names). */
export interface ReferenceEgressPlan {
  name: string;
  plan: EgressPlanConfig;
}

/**
 * The block as written (its optional fields take their defaults in `resolveReferenceConfig`): the
 * reference keeps one hand-written type for both sides.
 */
export type ReferenceConfigInput = ReferenceConfig;

/** The config with defaults filled in and the token wrapped. */
export interface ResolvedReferenceConfig {
  hosts: Required<ReferenceHostConfig>[];
  machineTypes: Record<string, ReferenceMachineType>;
  images: Record<string, ReferenceImage>;
  token: Secret<string>;
  listPartial: 'fail-whole' | 'omit-unreachable';
  pollIntervalMs: number;
  startTimeoutMs: number;
  /** The compiled plan; undefined without one. */
  egressPlan: EgressPlan | undefined;
}

const NAME = /^[a-z0-9][a-z0-9-]{0,62}$/;
const KEY = /^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/;

function bad(provider: string, message: string): Error {
  return permanentError(`invalid config: ${message}`, {
    code: ErrorCode.InvalidConfig,
    provider,
    operation: 'configure',
  });
}

const positive = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v) && v > 0;

/** Validates a reference config, naming the first bad value; throws a Permanent INVALID_CONFIG. */
export function resolveReferenceConfig(provider: string, config: ReferenceConfig): ResolvedReferenceConfig {
  if (typeof config !== 'object' || config === null) throw bad(provider, 'the config must be an object');
  if (!Array.isArray(config.hosts) || config.hosts.length === 0)
    throw bad(provider, 'hosts must list at least one host');
  const seen = new Set<string>();
  const hosts = config.hosts.map((h, i) => {
    if (typeof h?.name !== 'string' || !NAME.test(h.name)) {
      throw bad(provider, `hosts[${i}].name ${JSON.stringify(h?.name)} must match ${NAME}`);
    }
    if (seen.has(h.name)) throw bad(provider, `hosts[${i}].name ${JSON.stringify(h.name)} is listed twice`);
    seen.add(h.name);
    return { name: h.name, address: h.address ?? `${h.name}.lab.internal`, pool: h.pool ?? 'default' };
  });
  for (const [what, table] of [
    ['machineTypes', config.machineTypes],
    ['images', config.images],
  ] as const) {
    if (typeof table !== 'object' || table === null || Object.keys(table).length === 0) {
      throw bad(provider, `${what} must have at least one entry`);
    }
    for (const key of Object.keys(table)) {
      if (!KEY.test(key)) throw bad(provider, `${what} key ${JSON.stringify(key)} must match ${KEY}`);
    }
  }
  for (const [key, m] of Object.entries(config.machineTypes)) {
    for (const field of ['vcpus', 'memoryMiB', 'diskGiB'] as const) {
      if (!positive(m?.[field]))
        throw bad(provider, `machineTypes.${key}.${field} must be a positive number, got ${m?.[field]}`);
    }
  }
  for (const [key, img] of Object.entries(config.images)) {
    if (typeof img?.url !== 'string' || !/^https?:\/\//.test(img.url)) {
      throw bad(provider, `images.${key}.url must be an http(s) URL, got ${JSON.stringify(img?.url)}`);
    }
    if (!positive(img.sizeGiB))
      throw bad(provider, `images.${key}.sizeGiB must be a positive number, got ${img.sizeGiB}`);
  }
  const token = config.token instanceof Secret ? config.token : new Secret(config.token);
  if (typeof token.reveal() !== 'string' || token.reveal() === '')
    throw bad(provider, 'token must be a non-empty string');
  const listPartial = config.listPartial ?? 'fail-whole';
  if (listPartial !== 'fail-whole' && listPartial !== 'omit-unreachable') {
    throw bad(
      provider,
      `listPartial must be "fail-whole" or "omit-unreachable", got ${JSON.stringify(listPartial)}`,
    );
  }
  const pollIntervalMs = config.pollIntervalMs ?? 500;
  const startTimeoutMs = config.startTimeoutMs ?? 15_000;
  if (!positive(pollIntervalMs))
    throw bad(provider, `pollIntervalMs must be positive, got ${pollIntervalMs}`);
  if (!positive(startTimeoutMs))
    throw bad(provider, `startTimeoutMs must be positive, got ${startTimeoutMs}`);
  const egressPlan = config.egressPlan === undefined ? undefined : resolvePlan(provider, config.egressPlan);
  return {
    hosts,
    machineTypes: { ...config.machineTypes },
    images: { ...config.images },
    token,
    listPartial,
    pollIntervalMs,
    startTimeoutMs,
    egressPlan,
  };
}

function resolvePlan(provider: string, p: ReferenceEgressPlan): EgressPlan {
  if (typeof p?.name !== 'string' || !KEY.test(p.name)) {
    throw bad(provider, `egressPlan.name ${JSON.stringify(p?.name)} must match ${KEY}`);
  }
  const plan = parseConfig(egressPlanSchema, p.plan, { type: 'reference egressPlan.plan', provider });
  return compileEgressPlan(p.name, plan);
}

/** The defaults `resolveReferenceConfig` fills in. */
export const REFERENCE_DEFAULTS = {
  pool: 'default',
  listPartial: 'fail-whole',
  pollIntervalMs: 500,
  startTimeoutMs: 15_000,
} as const;

const positiveNumber = () =>
  s.number().refine(
    (v) => v > 0,
    (v) => `must be > 0, got ${v}`,
  );
const table = <Out, In>(value: Schema<Out, In>, what: string) =>
  s.record(s.string().pattern(KEY, `${what} key`), value).check((r, ctx) => {
    if (Object.keys(r).length === 0) ctx.issue(`needs at least 1 ${what} entry, got none`);
  });

/**
 * The `reference:` block as the providers-file loader checks it, in the one config-error format.
 * The token may also be a `Secret` when the config is built in code.
 */
export const referenceConfigSchema = s.object({
  hosts: s
    .array(
      s.object({
        name: s.string().pattern(NAME, 'host name (lower-case letters, digits and "-", at most 63)'),
        address: s.string().min(1).optional(),
        pool: s.string().min(1).optional(),
      }),
      { min: 1 },
    )
    .check((hosts, ctx) => uniqueStrings(hosts, ctx, 'host name', 'name')),
  machineTypes: table(
    s.object({ vcpus: positiveNumber(), memoryMiB: positiveNumber(), diskGiB: positiveNumber() }),
    'machine type',
  ),
  images: table(s.object({ url: url(['http', 'https']), sizeGiB: positiveNumber() }), 'image'),
  token: s
    .unknown()
    .refine(
      (v) => (typeof v === 'string' && v !== '') || v instanceof Secret,
      'required: a non-empty string (the credential every backend call carries)',
    )
    .transform((v) => v as string | Secret<string>),
  listPartial: s.enum(['fail-whole', 'omit-unreachable']).optional(),
  pollIntervalMs: positiveNumber().optional(),
  startTimeoutMs: positiveNumber().optional(),
  egressPlan: s.object({ name: s.string().pattern(KEY, 'plan name'), plan: egressPlanSchema }).optional(),
}) satisfies Schema<ReferenceConfig, unknown>;
