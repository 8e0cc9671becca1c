import {
  absolutePath,
  buildHostEgressPlan,
  cidrList,
  filePath,
  type HostEgressPlanInput,
  type Infer,
  type InferInput,
  ipAddress,
  parseConfig,
  range,
  s,
} from '@egress-proxies/provider-utils';

export const LOCAL_DEFAULTS = {
  bindAddress: '127.0.0.1',
  portRange: { min: 40000, max: 40999 },
  engine: 'auto',
  /** Loopback only, matching the default bind address. */
  allowedSourceCIDRs: ['127.0.0.0/8', '::1/128'],
  loopbackEgress: false,
} as const;

/** The `egress:` block: host addresses handed to proxies, one each, and/or a prefix to rotate in. */
const egressPlanSchema = s
  .object({
    ipv4: s.array(s.string()).optional(),
    ipv6Prefix: s.string().optional(),
    exclude: s.array(s.string()).optional(),
  })
  .check((plan, ctx) => {
    const built = buildHostEgressPlan(plan as HostEgressPlanInput);
    if (!built.ok) for (const issue of built.issues) ctx.issue(issue.message, issue.path);
  });

/** The `local:` block: proxies as processes on this machine (development, CI, tests). */
export const localConfigSchema = s
  .object({
    /** Where each proxy's state file (its mark) and runtime files live. */
    stateDir: filePath(),
    bindAddress: ipAddress().default(LOCAL_DEFAULTS.bindAddress),
    /** Ports handed to proxies: the request's port when it is inside and free, otherwise one allocated from the range. */
    portRange: range(1, 65535).default(() => ({ ...LOCAL_DEFAULTS.portRange })),
    /** The Squid binary; looked up on PATH when absent. */
    squidPath: absolutePath('absolute path to the squid binary').optional(),
    /** `auto` uses Squid when found and the built-in Node proxy otherwise. */
    engine: s.enum(['auto', 'squid', 'node']).default(LOCAL_DEFAULTS.engine),
    allowedSourceCIDRs: cidrList().default(() => [...LOCAL_DEFAULTS.allowedSourceCIDRs]),
    /**
     * Gives each proxy that names no placement.zone its own outgoing address 127.0.0.N (N >= 2),
     * so one machine shows distinct egress addresses. Reaches loopback targets only: Linux routes
     * all of 127.0.0.0/8 to lo and never sends such a source anywhere else.
     */
    loopbackEgress: s.boolean().default(LOCAL_DEFAULTS.loopbackEgress),
    /**
     * The egress plan: each proxy that names no placement.zone gets its own address from `ipv4`
     * (recorded in its state file, freed on delete), and with `ipv6Prefix` the Node engine leaves
     * from a random address of the prefix on every connection (the host setup is in the README).
     */
    egress: egressPlanSchema.optional(),
  })
  .check((c, ctx) => {
    if (c.egress && c.loopbackEgress === true) {
      ctx.issue('loopbackEgress and egress both pick the outgoing address; set one of them', ['egress']);
    }
    if (c.egress?.ipv6Prefix !== undefined && c.engine === 'squid') {
      ctx.issue(
        'egress.ipv6Prefix rotates the source address per connection, which only the node engine does; use engine node or auto',
        ['engine'],
      );
    }
  });

/** A validated `local:` block, defaults filled. */
export type LocalConfig = Infer<typeof localConfigSchema>;
/** A `local:` block as written in a config (defaulted fields optional). */
export type LocalConfigInput = InferInput<typeof localConfigSchema>;

/** The engines a proxy can run on; `auto` is resolved to one of these at create time. */
export type Engine = 'squid' | 'node';

/**
 * Validates a `local:` block and fills its defaults, or throws the one config error (Permanent
 * `INVALID_CONFIG`) naming every bad field.
 */
export function resolveConfig(input: LocalConfigInput | LocalConfig, provider?: string): LocalConfig {
  return parseConfig(localConfigSchema, input, { type: 'local', provider });
}
