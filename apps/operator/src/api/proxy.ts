import { DURATION_RE } from './duration.js';
import { type Infer, type InferInput, s } from './schema.js';

const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const HOST_PORT = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9]([-A-Za-z0-9.]*[A-Za-z0-9])?):[0-9]{1,5}$/;
const HTTP_URL = /^https?:\/\/[^\s/$.?#][^\s]*$/;

export const PROXY_MODES = ['Managed', 'External'] as const;
export const PROXY_PHASES = ['Pending', 'Provisioning', 'Running', 'Ready', 'Failed', 'Deleting'] as const;
export type ProxyPhase = (typeof PROXY_PHASES)[number];

const placementSchema = s
  .object({
    region: s.string({ maxLength: 253 }).optional().describe('Region, for providers that use one.'),
    zone: s.string({ maxLength: 253 }).optional().describe('A zone, host or node name, per provider.'),
    machineType: s.string({ maxLength: 253 }).optional().describe("A key of the provider's machine types."),
    image: s.string({ maxLength: 2048 }).optional().describe("A key of the provider's images (or a URL)."),
  })
  .describe('Where and how big; each provider maps these onto its own catalogue.');

const cloudInitSchema = s
  .object(
    {
      inline: s.string({ maxLength: 262144 }).optional().describe('The user-data itself.'),
      secretRef: s
        .object({
          name: s.string({ minLength: 1, maxLength: 253 }).describe("A Secret in the Proxy's namespace."),
          key: s
            .string({ minLength: 1, maxLength: 253 })
            .default('user-data')
            .describe('The key holding the user-data.'),
        })
        .optional()
        .describe('A Secret holding the user-data.'),
    },
    [
      {
        rule: 'has(self.inline) != has(self.secretRef)',
        message: 'exactly one of cloudInit.inline and cloudInit.secretRef must be set',
        check: (v) => (v.inline !== undefined) !== (v.secretRef !== undefined),
      },
    ],
  )
  .describe('Cloud-init user-data, inline or from a Secret. Never copied into status, events or logs.');

const probeSchema = s
  .object({
    target: s
      .string({ maxLength: 2048, pattern: HTTP_URL, patternName: 'an http:// or https:// URL' })
      .describe('The URL fetched through the proxy; an echo of the caller address records the egress IP.'),
    targetIPv6: s
      .string({ maxLength: 2048, pattern: HTTP_URL, patternName: 'an http:// or https:// URL' })
      .optional()
      .describe(
        'An IPv6-only echo URL, probed as well when the instance has both an IPv4 and an IPv6 egress assigned, so each family is verified.',
      ),
    interval: s
      .string({ pattern: DURATION_RE, patternName: 'a duration such as 30s or 1m' })
      .default('60s')
      .describe('How often the probe runs once the proxy is Ready.'),
    timeout: s
      .string({ pattern: DURATION_RE, patternName: 'a duration such as 10s' })
      .default('10s')
      .describe('The budget of one attempt.'),
    retries: s
      .integer({ minimum: 0, maximum: 10 })
      .default(2)
      .describe('Extra attempts before the probe fails.'),
  })
  .describe('The health probe: an HTTP request through the proxy (CONNECT for https targets).');

export const proxySpecSchema = s
  .object(
    {
      mode: s
        .enum(PROXY_MODES)
        .default('Managed')
        .describe(
          'Managed: the operator creates the machine through provider. External: host:port only probed.',
        ),
      provider: s
        .string({ maxLength: 63, pattern: DNS1123_LABEL, patternName: 'a provider name (a DNS-1123 label)' })
        .optional()
        .describe('The providers-config entry that creates the machine (Managed).'),
      address: s
        .string({ maxLength: 261, pattern: HOST_PORT, patternName: 'host:port' })
        .optional()
        .describe('The existing proxy, host:port (External).'),
      placement: placementSchema.optional(),
      port: s
        .integer({ minimum: 1, maximum: 65535 })
        .default(3128)
        .describe('The port the proxy listens on.'),
      cloudInit: cloudInitSchema.optional(),
      probe: probeSchema.optional(),
    },
    [
      {
        rule: "self.mode != 'Managed' || has(self.provider)",
        message: 'spec.provider is required when mode is Managed',
        check: (v) => v.mode !== 'Managed' || v.provider !== undefined,
      },
      {
        rule: "self.mode != 'Managed' || !has(self.address)",
        message: 'spec.address applies only to mode External',
        check: (v) => v.mode !== 'Managed' || v.address === undefined,
      },
      {
        rule: "self.mode != 'External' || has(self.address)",
        message: 'spec.address (host:port) is required when mode is External',
        check: (v) => v.mode !== 'External' || v.address !== undefined,
      },
      {
        rule: "self.mode != 'External' || (!has(self.provider) && !has(self.placement) && !has(self.cloudInit))",
        message: 'spec.provider, spec.placement and spec.cloudInit apply only to mode Managed',
        check: (v) =>
          v.mode !== 'External' ||
          (v.provider === undefined && v.placement === undefined && v.cloudInit === undefined),
      },
    ],
  )
  .describe('The desired proxy.');

export const conditionSchema = s.object({
  type: s.string({ minLength: 1, maxLength: 316 }),
  status: s.enum(['True', 'False', 'Unknown'] as const),
  reason: s.string({ minLength: 1, maxLength: 1024 }),
  message: s.string({ maxLength: 32768 }).optional(),
  lastTransitionTime: s.dateTime(),
  observedGeneration: s.integer({ minimum: 0 }).optional(),
});

export const proxyStatusSchema = s
  .object({
    phase: s.enum(PROXY_PHASES).optional(),
    providerID: s.string().optional().describe('The provider ID of the current instance.'),
    ip: s.string().optional().describe('The address clients connect to.'),
    port: s
      .integer({ minimum: 1, maximum: 65535 })
      .optional()
      .describe('The port clients connect to, when the provider allocated one (else spec.port).'),
    egressIP: s.string().optional().describe('The address the probe target saw.'),
    assignedEgress: s
      .object({
        ipv4: s.string().optional().describe('The IPv4 address the proxy leaves from.'),
        ipv6: s.string().optional().describe('The IPv6 address the proxy leaves from.'),
        ipv6Prefix: s
          .string()
          .optional()
          .describe('The IPv6 prefix the proxy picks a source address in, per connection.'),
      })
      .optional()
      .describe(
        'The egress addresses the provider assigned to the instance (its egress plan); the EgressVerified condition compares them with what the probe target saw.',
      ),
    healthy: s.boolean().optional(),
    message: s.string().optional(),
    observedGeneration: s.integer({ minimum: 0 }).optional(),
    conditions: s.array(conditionSchema, { mapKeys: ['type'] }).optional(),
    lastProbeTime: s.dateTime().optional(),
    instanceProvider: s.string().optional().describe('The provider holding the current instance.'),
    instanceGeneration: s
      .integer({ minimum: 0 })
      .optional()
      .describe('The generation the instance was made for.'),
    instanceSpecHash: s
      .string()
      .optional()
      .describe('A digest of the spec fields the instance was made from; a change replaces the instance.'),
    instanceCreatedTime: s
      .dateTime()
      .optional()
      .describe('When the current instance was created: the start of its readiness window.'),
    progress: s
      .string()
      .optional()
      .describe(
        'The latest progress a long create reported (an image download), while it runs; the Provisioned condition says it too.',
      ),
    pendingCreate: s
      .object({
        provider: s.string().describe('The provider entry the create was started through.'),
        instanceSpecHash: s.string().describe('The spec digest the create was started for.'),
        startedTime: s.dateTime(),
      })
      .optional()
      .describe(
        'A create that was started and has not returned its instance yet (it may be partly made): written before the create starts, so a restarted operator or a deletion finishes it instead of leaving part of an instance behind.',
      ),
    stoppedSince: s
      .dateTime()
      .optional()
      .describe('When the instance was first seen Stopped; it is replaced once the grace period has passed.'),
    failure: s
      .object({
        generation: s.integer({ minimum: 0 }),
        providerConfig: s
          .string()
          .describe("The provider entry's fingerprint when it failed; empty when absent."),
        credentials: s
          .string()
          .optional()
          .describe(
            "A digest of the provider's credential files when it failed; a change releases the latch.",
          ),
        nextRetryTime: s
          .dateTime()
          .optional()
          .describe('When the latched failure is tried once more, in case it was fixed outside the spec.'),
      })
      .optional()
      .describe('A permanent failure latched until the generation or the provider entry changes.'),
  })
  .describe('What the operator observed.');

export type ProxySpec = Infer<typeof proxySpecSchema>;
export type ProxySpecInput = InferInput<typeof proxySpecSchema>;
export type ProxyStatus = Infer<typeof proxyStatusSchema>;
export type Condition = Infer<typeof conditionSchema>;

/** The metadata fields the operator reads. */
export interface ObjectMeta {
  name: string;
  namespace?: string;
  uid?: string;
  generation?: number;
  resourceVersion?: string;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  finalizers?: string[];
  annotations?: Record<string, string>;
  labels?: Record<string, string>;
}

/** A Proxy object as read from the store. */
export interface ProxyObject {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta & { namespace: string };
  spec: ProxySpecInput;
  status?: ProxyStatus;
}
