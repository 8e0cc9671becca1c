import { DURATION_RE } from './duration.js';
import { conditionSchema, type ObjectMeta, proxySpecSchema } from './proxy.js';
import { type Infer, type InferInput, s, validate } from './schema.js';

const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

export const PROXY_POOL = {
  kind: 'ProxyPool',
  plural: 'proxypools',
  singular: 'proxypool',
  shortNames: ['pxp'],
} as const;

export const POOL_SELECTIONS = ['round-robin', 'random', 'least-connections'] as const;
/** How plain HTTP without a session picks members: per request, or per client connection. */
export const POOL_ROTATES = ['per-request', 'per-connection'] as const;
export const ON_BAN = ['Keep', 'Recycle'] as const;
export const ON_DUPLICATE_EGRESS = ['Keep', 'Recycle'] as const;
/** Who sets spec.replicas under autoscale: the operator from the gateway's load, or an outside scaler (HPA, KEDA). */
export const AUTOSCALERS = ['Builtin', 'External'] as const;

const spreadEntrySchema = s.object({
  provider: s
    .string({ maxLength: 63, pattern: DNS1123_LABEL, patternName: 'a provider name (a DNS-1123 label)' })
    .describe('The providers-config entry this share of the members is created through.'),
  zone: s.string({ maxLength: 253 }).optional().describe("The members' placement.zone."),
  weight: s.integer({ minimum: 1, maximum: 1000 }).default(1).describe("This entry's share of the replicas."),
});

const rotationSchema = s
  .object(
    {
      maxAge: s
        .string({ pattern: DURATION_RE, patternName: 'a duration such as 30m or 6h' })
        .optional()
        .describe('Members older than this are replaced (the new one Ready before the old one goes).'),
      maxSurge: s
        .integer({ minimum: 1, maximum: 100 })
        .default(1)
        .describe('How many replacement members may exist above replicas at once.'),
      minReady: s
        .integer({ minimum: 0, maximum: 10000 })
        .default(0)
        .describe('A rotation never takes the Ready count below this.'),
      onBan: s
        .enum(ON_BAN)
        .default('Keep')
        .describe('Recycle: a member the gateway cooled down (connect failures, 403/429) is replaced.'),
      onDuplicateEgress: s
        .enum(ON_DUPLICATE_EGRESS)
        .default('Keep')
        .describe(
          'Recycle: when two Ready members are seen leaving from one address, the younger is replaced (the DistinctEgress condition names them either way).',
        ),
    },
    [],
  )
  .describe('Replacing old or banned members.');

const durationField = (example: string) =>
  s.string({ pattern: DURATION_RE, patternName: `a duration such as ${example}` });

export const autoscaleSchema = s
  .object(
    {
      scaler: s
        .enum(AUTOSCALERS)
        .default('Builtin')
        .describe(
          'Builtin: the operator sets spec.replicas from the load the gateway sees. External: an outside scaler (HPA, KEDA, `kubectl scale`) writes spec.replicas through the scale subresource; the operator keeps it within minReplicas..maxReplicas and still wakes a pool at zero on a request.',
        ),
      minReplicas: s
        .integer({ minimum: 0, maximum: 10000 })
        .default(1)
        .describe('The fewest members; 0 lets an idle pool sleep (the gateway wakes it on a request).'),
      maxReplicas: s.integer({ minimum: 1, maximum: 10000 }).describe('The most members.'),
      targetActiveConnections: s
        .integer({ minimum: 1, maximum: 1000000 })
        .optional()
        .describe(
          'Open connections (tunnels and plain-HTTP requests in flight) per member the pool sizes for.',
        ),
      targetRequestsPerSecond: s
        .integer({ minimum: 1, maximum: 1000000 })
        .optional()
        .describe('New requests and tunnels per second per member the pool sizes for.'),
      scaleDownAfter: durationField('5m')
        .default('5m')
        .describe('How long the load must stay below what fewer members carry before members go.'),
      maxScaleUpStep: s
        .integer({ minimum: 1, maximum: 10000 })
        .default(10)
        .describe('The most members added by one scale step.'),
      maxScaleDownStep: s
        .integer({ minimum: 1, maximum: 10000 })
        .default(1)
        .describe('The most members removed by one scale step.'),
      stepInterval: durationField('15s')
        .default('15s')
        .describe('The least time between two scale steps (waking from zero does not wait for it).'),
      drainTimeout: durationField('2m')
        .optional()
        .describe(
          'How long a member chosen to go that a gateway still reports busy (open tunnels, requests in flight, live sessions) drains before it is deleted anyway; it gets no new requests or sessions meanwhile. Default 2m.',
        ),
      wakeTimeout: durationField('30s')
        .default('30s')
        .describe(
          'How long the gateway holds a request while the pool has no Ready member and wakes; then it answers 503 with Retry-After.',
        ),
    },
    [
      {
        rule: 'self.minReplicas <= self.maxReplicas',
        message: 'spec.autoscale.minReplicas must not exceed spec.autoscale.maxReplicas',
        explain: (v) =>
          `spec.autoscale.minReplicas (${v.minReplicas}) must not exceed spec.autoscale.maxReplicas (${v.maxReplicas})`,
        check: (v) => v.minReplicas <= v.maxReplicas,
      },
      {
        rule: "self.scaler == 'External' || has(self.targetActiveConnections) || has(self.targetRequestsPerSecond)",
        message:
          'spec.autoscale needs a load per member to size for: targetActiveConnections and/or targetRequestsPerSecond (or scaler: External)',
        check: (v) =>
          v.scaler === 'External' ||
          v.targetActiveConnections !== undefined ||
          v.targetRequestsPerSecond !== undefined,
      },
    ],
  )
  .describe(
    'Pools that follow demand: the member count moves between minReplicas and maxReplicas with the load the gateway sees; spec.replicas then holds the current size.',
  );

export const proxyPoolGatewaySchema = s
  .object({
    enabled: s
      .boolean()
      .default(true)
      .describe('false: the pool has no gateway (`egress-proxies gateway --pool` refuses to serve it).'),
    selection: s
      .enum(POOL_SELECTIONS)
      .default('round-robin')
      .describe('Which member gets each new connection.'),
    rotate: s
      .enum(POOL_ROTATES)
      .default('per-request')
      .describe(
        'Plain HTTP without a session: per-request picks a member for every request, also on a keep-alive connection; per-connection keeps a client connection on one member while it stays eligible. Tunnels and SOCKS5 are one connection each either way.',
      ),
    sessionTTL: s
      .string({ pattern: DURATION_RE, patternName: 'a duration such as 10m' })
      .default('10m')
      .describe(
        "How long the gateway remembers a session's member after its last use, to tell the client when the session moved.",
      ),
    cooldown: s
      .string({ pattern: DURATION_RE, patternName: 'a duration such as 60s' })
      .default('60s')
      .describe('How long a failing or banned member gets no new connections.'),
    banStatuses: s
      .array(s.integer({ minimum: 400, maximum: 599 }), { maxItems: 20 })
      .default([403, 429])
      .describe('Member answers to plain-HTTP requests that cool the member down.'),
    usersSecret: s
      .string({ maxLength: 253, minLength: 1 })
      .optional()
      .describe(
        'A Secret (key: user, value: password) for Basic proxy auth; required off loopback. `egress-proxies gateway --pool` reads it unless given --users-dir.',
      ),
    port: s
      .integer({ minimum: 1, maximum: 65535 })
      .default(8080)
      .describe('The port the gateway listens on, unless its --listen names one.'),
  })
  .describe('The single endpoint in front of the members.');

export const proxyPoolSpecSchema = s
  .object(
    {
      replicas: s
        .integer({ minimum: 0, maximum: 10000 })
        .describe(
          'How many members to keep. With autoscale: the size the autoscaler last chose (the Builtin one writes it) or an outside scaler wrote (External), kept within minReplicas..maxReplicas.',
        ),
      template: proxySpecSchema
        .clone()
        .describe('The Proxy spec every member gets (spread overrides provider and zone).'),
      spread: s.array(spreadEntrySchema, { maxItems: 64 }).optional(),
      rotation: rotationSchema.optional(),
      gateway: proxyPoolGatewaySchema.optional(),
      autoscale: autoscaleSchema.optional(),
    },
    [
      {
        rule: "self.template.mode == 'Managed'",
        message: 'spec.template.mode must be Managed (a pool creates its members)',
        check: (v) => v.template.mode === 'Managed',
      },
      {
        rule: '!has(self.rotation) || has(self.autoscale) || self.rotation.minReady <= self.replicas',
        message: 'spec.rotation.minReady must not exceed spec.replicas',
        check: (v) => !v.rotation || v.autoscale !== undefined || v.rotation.minReady <= v.replicas,
      },
      {
        rule: '!has(self.rotation) || !has(self.autoscale) || self.rotation.minReady <= self.autoscale.maxReplicas',
        message: 'spec.rotation.minReady must not exceed spec.autoscale.maxReplicas',
        check: (v) => !v.rotation || !v.autoscale || v.rotation.minReady <= v.autoscale.maxReplicas,
      },
    ],
  )
  .describe('A pool of Proxies kept at size and rotated, behind one gateway.');

const memberSchema = s.object({
  name: s.string(),
  provider: s.string().optional(),
  ip: s.string().optional(),
  port: s.integer({ minimum: 0 }).optional(),
  egressIP: s.string().optional().describe('The address its probe target saw.'),
  assignedEgress: s
    .object({ ipv4: s.string().optional(), ipv6: s.string().optional(), ipv6Prefix: s.string().optional() })
    .optional()
    .describe('The egress addresses its provider assigned (the Proxy status.assignedEgress).'),
  createdAt: s.dateTime().optional(),
  ready: s.boolean(),
  cooledDown: s.boolean().optional(),
  drainingSince: s
    .dateTime()
    .optional()
    .describe(
      'Chosen to go while a gateway still reported it busy: since then it gets no new requests or sessions, and it is deleted once the gateways report it idle or spec.autoscale.drainTimeout passes.',
    ),
});

const autoscaleStatusSchema = s
  .object({
    desired: s.integer({ minimum: 0 }).describe('The size the autoscaler wants now, within min..max.'),
    activeConnections: s
      .integer({ minimum: 0 })
      .optional()
      .describe("Open connections through the pool's gateways (their fresh reports summed)."),
    requestsPerSecond: s
      .string()
      .optional()
      .describe('New requests and tunnels per second through the gateways (a decimal).'),
    waiting: s
      .integer({ minimum: 0 })
      .optional()
      .describe('Requests the gateways hold while the pool wakes.'),
    lastActiveTime: s
      .dateTime()
      .optional()
      .describe('When the load last needed the current size (scaleDownAfter counts from here).'),
    lastScaleTime: s.dateTime().optional().describe('When the size last changed.'),
  })
  .describe('What the autoscaler saw and chose; the Scaling condition says why.');

export const proxyPoolStatusSchema = s
  .object({
    replicas: s
      .integer({ minimum: 0 })
      .optional()
      .describe('Members that exist, draining ones (on their way out) not counted.'),
    selector: s
      .string()
      .optional()
      .describe("The label selector of the pool's member Proxies (the scale subresource's selector)."),
    autoscale: autoscaleStatusSchema.optional(),
    ready: s.integer({ minimum: 0 }).optional().describe('Members that are Ready.'),
    updated: s.integer({ minimum: 0 }).optional().describe('Members made from the current template.'),
    members: s.array(memberSchema, { maxItems: 10000 }).optional(),
    gateway: s
      .string()
      .optional()
      .describe("The gateway Service's endpoint, host:port; absent while the pool has no gateway Service."),
    conditions: s.array(conditionSchema, { mapKeys: ['type'] }).optional(),
    observedGeneration: s.integer({ minimum: 0 }).optional(),
  })
  .describe('What the pool controller observed.');

export type ProxyPoolSpec = Infer<typeof proxyPoolSpecSchema>;
export type ProxyPoolSpecInput = InferInput<typeof proxyPoolSpecSchema>;
export type ProxyPoolStatus = Infer<typeof proxyPoolStatusSchema>;
export type PoolMemberStatus = Infer<typeof memberSchema>;
export type AutoscaleSpec = Infer<typeof autoscaleSchema>;
export type AutoscaleStatus = Infer<typeof autoscaleStatusSchema>;

/** The selector string of a pool's members, as status.selector and the scale subresource carry it. */
export const poolSelector = (pool: string): string => `${POOL_LABEL}=${pool}`;

/** The annotation naming a member to replace now (`kubectl annotate pxp NAME egress-proxies.dev/recycle=MEMBER`). */
export const RECYCLE_ANNOTATION = 'egress-proxies.dev/recycle';
/** The label every member carries: its pool's name. */
export const POOL_LABEL = 'egress-proxies.dev/pool';
/** The label holding the template hash a member was made from. */
export const TEMPLATE_HASH_LABEL = 'egress-proxies.dev/pool-template';

/** A ProxyPool object as read from the store. */
export interface ProxyPoolObject {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta & { namespace: string };
  spec: ProxyPoolSpecInput;
  status?: ProxyPoolStatus;
}

/** The pool spec with defaults filled; throws `ProxySpecError`-like issues naming every bad field. */
export function validateProxyPoolSpec(spec: unknown): ProxyPoolSpec {
  const r = validate(proxyPoolSpecSchema, spec, 'spec');
  if (!r.ok)
    throw new Error(`invalid ProxyPool spec: ${r.issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`);
  return r.value;
}
