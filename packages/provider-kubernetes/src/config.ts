import {
  cidrList,
  DNS1123_SUBDOMAIN_RE,
  dns1123Label,
  dns1123Subdomain,
  formatValue,
  type Infer,
  type InferInput,
  nonEmptyString,
  parseConfig,
  s,
  uniqueStrings,
} from '@egress-proxies/provider-utils';

export const KUBERNETES_DEFAULTS = {
  /**
   * Canonical's Squid image on the Ubuntu 24.04 LTS base. Pin a digest in production, and
   * mirror it where clusters cannot pull from public registries.
   */
  image: 'ubuntu/squid:6.6-24.04_beta',
  namespacePolicy: 'proxy',
  resources: {
    requests: { cpu: '50m', memory: '64Mi' },
    limits: { cpu: '500m', memory: '256Mi' },
  },
  /** The private IPv4 ranges plus IPv6 unique-local: in-cluster and on-premises clients only. */
  allowedSourceCIDRs: ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', 'fc00::/7'],
} as const;

const QUANTITY_RE = /^([+]?(?:\d+(?:\.\d*)?|\.\d+))(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]|[eE][+-]?\d+)?$/;
const SUFFIX: Record<string, number> = {
  n: 1e-9,
  u: 1e-6,
  m: 1e-3,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  P: 1e15,
  E: 1e18,
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
  Pi: 2 ** 50,
  Ei: 2 ** 60,
};

/** A Kubernetes resource quantity (`250m`, `1`, `128Mi`, `1e3`) as a number; undefined when invalid. */
export function parseQuantity(q: string): number | undefined {
  const m = QUANTITY_RE.exec(q);
  if (!m) return undefined;
  const base = Number(m[1]);
  const suffix = m[2];
  if (!suffix) return base;
  if (suffix[0] === 'e' || suffix[0] === 'E') return base * 10 ** Number(suffix.slice(1));
  return base * (SUFFIX[suffix] ?? Number.NaN);
}

const quantity = (what: string) =>
  s.string().refine(
    (v) => parseQuantity(v) !== undefined,
    (v) => `${formatValue(v)} is not a valid ${what} quantity (for example 250m, 1, 128Mi)`,
  );

const resourceList = s.object({
  cpu: quantity('cpu').optional(),
  memory: quantity('memory').optional(),
});

const resources = s
  .object({ requests: resourceList.optional(), limits: resourceList.optional() })
  .check((r, ctx) => {
    for (const res of ['cpu', 'memory'] as const) {
      const req = r.requests?.[res];
      const lim = r.limits?.[res];
      if (typeof req !== 'string' || typeof lim !== 'string') continue;
      const a = parseQuantity(req);
      const b = parseQuantity(lim);
      if (a !== undefined && b !== undefined && a > b) {
        ctx.issue(`request ${formatValue(req)} exceeds limit ${formatValue(lim)}`, ['requests', res]);
      }
    }
  });

/** `[prefix/]name`, the Kubernetes label-key rule. */
function isLabelKey(k: string): boolean {
  const slash = k.lastIndexOf('/');
  const prefix = slash >= 0 ? k.slice(0, slash) : undefined;
  const name = slash >= 0 ? k.slice(slash + 1) : k;
  if (prefix !== undefined && !DNS1123_SUBDOMAIN_RE.test(prefix)) return false;
  return /^[A-Za-z0-9](?:[-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/.test(name);
}

const labelMap = () =>
  s.record(
    s
      .string()
      .refine(
        isLabelKey,
        (v) => `${formatValue(v)} is not a valid label key ([prefix/]name, name at most 63)`,
      ),
    s.string().refine(
      (v) => /^(?:[A-Za-z0-9](?:[-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)?$/.test(v),
      (v) => `${formatValue(v)} is not a valid label value (at most 63, alphanumeric ends)`,
    ),
  );

const toleration = s
  .object({
    key: nonEmptyString().optional(),
    operator: s.enum(['Exists', 'Equal']).default('Equal'),
    value: s.string().optional(),
    effect: s.enum(['NoSchedule', 'PreferNoSchedule', 'NoExecute']).optional(),
    tolerationSeconds: s.int(0, 2 ** 31 - 1).optional(),
  })
  .check((t, ctx) => {
    if (t.operator === 'Exists' && t.value !== undefined && t.value !== '') {
      ctx.issue(`must be empty when operator is Exists, got ${formatValue(t.value)}`, ['value']);
    }
    if (t.tolerationSeconds !== undefined && t.effect !== 'NoExecute') {
      ctx.issue(`only applies with effect NoExecute, got effect ${formatValue(t.effect)}`, [
        'tolerationSeconds',
      ]);
    }
  });

/** The `kubernetes:` block: one Squid Pod per proxy, in the cluster the operator runs in. */
export const kubernetesConfigSchema = s
  .object({
    image: nonEmptyString()
      .refine(
        (v) => !/\s/.test(v),
        (v) => `${formatValue(v)} is not an image reference`,
      )
      .default(KUBERNETES_DEFAULTS.image),
    /** `proxy`: each Pod in its Proxy's namespace. `fixed`: every Pod in `namespace`. */
    namespacePolicy: s.enum(['proxy', 'fixed']).default(KUBERNETES_DEFAULTS.namespacePolicy),
    namespace: dns1123Label('namespace').optional(),
    resources: resources.default(() => ({
      requests: { ...KUBERNETES_DEFAULTS.resources.requests },
      limits: { ...KUBERNETES_DEFAULTS.resources.limits },
    })),
    /** Clients allowed through Squid (its `http_access` source ACL). */
    allowedSourceCIDRs: cidrList().default(() => [...KUBERNETES_DEFAULTS.allowedSourceCIDRs]),
    nodeSelector: labelMap().optional(),
    tolerations: s.array(toleration).optional(),
    serviceAccountName: dns1123Subdomain('service account name').optional(),
    imagePullSecrets: s
      .array(dns1123Subdomain('secret name'))
      .check((list, ctx) => uniqueStrings(list, ctx, 'secret'))
      .optional(),
  })
  .check((c, ctx) => {
    if (c.namespacePolicy === 'fixed' && c.namespace === undefined) {
      ctx.issue('required when namespacePolicy is "fixed"', ['namespace']);
    }
    if (c.namespacePolicy === 'proxy' && c.namespace !== undefined) {
      ctx.issue(`${formatValue(c.namespace)} is only used with namespacePolicy "fixed" (policy is "proxy")`, [
        'namespace',
      ]);
    }
  });

/** A validated `kubernetes:` block, defaults filled. */
export type KubernetesConfig = Infer<typeof kubernetesConfigSchema>;
/** A `kubernetes:` block as written in a config (defaulted fields optional). */
export type KubernetesConfigInput = InferInput<typeof kubernetesConfigSchema>;

/**
 * Validates a `kubernetes:` block and fills its defaults, or throws the one config error
 * (Permanent `INVALID_CONFIG`, one line per bad field).
 */
export function parseKubernetesConfig(input: unknown = {}, provider?: string): KubernetesConfig {
  return parseConfig(kubernetesConfigSchema, input, { type: 'kubernetes', provider });
}
