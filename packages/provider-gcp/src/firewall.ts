import { type Logger, permanentError } from '@egress-proxies/contract';
import type { ComputeApi, ComputeFirewall } from './backend.js';
import type { ResolvedGcpConfig } from './config.js';
import { ComputeApiError, classifyOperation, GcpErrorCode } from './errors.js';
import { derivedRequestId, labelValue } from './labels.js';

/** The rule name for a provider entry: `egress-proxy-<entry>`, a valid resource name. */
export function firewallRuleName(providerName: string): string {
  const base = `egress-proxy-${labelValue(providerName).replace(/_/g, '-')}`.slice(0, 63).replace(/-+$/, '');
  return base;
}

/** The rule this provider wants for `port`. */
export function buildFirewallRule(cfg: ResolvedGcpConfig, ruleName: string, port: number): ComputeFirewall {
  return {
    name: ruleName,
    network: cfg.network,
    direction: 'INGRESS',
    priority: 1000,
    sourceRanges: [...cfg.firewall.sourceRanges],
    targetTags: [cfg.networkTag],
    allowed: [{ IPProtocol: 'tcp', ports: [String(port)] }],
    description: 'Managed by egress-proxies: the proxy port for instances carrying the network tag.',
  };
}

function allowsPort(rule: ComputeFirewall, port: number): boolean {
  return (rule.allowed ?? []).some((a) => {
    if (a.IPProtocol !== 'tcp' && a.IPProtocol !== 'all') return false;
    if (!a.ports || a.ports.length === 0) return true;
    return a.ports.some((p) => {
      const [lo, hi] = p.split('-').map(Number);
      return hi === undefined ? lo === port : lo! <= port && port <= hi;
    });
  });
}

/**
 * What differs between an existing rule and what the config asks for; empty when it fits.
 * Differences are reported, never fixed: changing a rule someone else may rely on, or opening
 * it wider than it is, is the user's decision.
 */
export function firewallMismatch(rule: ComputeFirewall, want: ComputeFirewall, port: number): string[] {
  const out: string[] = [];
  if (rule.disabled) out.push('the rule is disabled');
  if ((rule.direction ?? 'INGRESS') !== 'INGRESS') out.push(`direction is ${rule.direction}`);
  if (!allowsPort(rule, port)) out.push(`tcp:${port} is not allowed`);
  if (!(rule.targetTags ?? []).includes(want.targetTags![0]!))
    out.push(`target tag ${want.targetTags![0]} is missing`);
  const have = [...(rule.sourceRanges ?? [])].sort().join(',');
  const wantRanges = [...(want.sourceRanges ?? [])].sort().join(',');
  if (have !== wantRanges) out.push(`source ranges are [${have}], config says [${wantRanges}]`);
  return out;
}

/**
 * Ensures the provider entry's rule for the proxy port: created when missing, checked when
 * present. A rule that does not match is a Permanent `FIREWALL_MISMATCH` naming each
 * difference; it is never widened or rewritten.
 */
export class FirewallManager {
  readonly #ok = new Set<number>();

  constructor(
    private readonly api: ComputeApi,
    private readonly cfg: ResolvedGcpConfig,
    readonly ruleName: string,
  ) {}

  get enabled(): boolean {
    return this.cfg.firewall.enabled;
  }

  async ensure(signal: AbortSignal | undefined, port: number, logger: Logger): Promise<void> {
    if (!this.enabled || this.#ok.has(port)) return;
    const want = buildFirewallRule(this.cfg, this.ruleName, port);
    let existing: ComputeFirewall | undefined;
    try {
      existing = await this.api.getFirewall(signal, this.ruleName);
    } catch (err) {
      if (!(ComputeApiError.isInstance(err) && err.status === 404)) throw err;
    }
    if (!existing) {
      try {
        const op = await this.api.insertFirewall(
          signal,
          want,
          derivedRequestId('firewall', this.ruleName, String(port)),
        );
        const failed = classifyOperation(op);
        if (failed) throw failed;
        logger.log(1, 'firewall rule created', {
          rule: this.ruleName,
          port,
          sourceRanges: want.sourceRanges,
        });
        this.#ok.add(port);
        return;
      } catch (err) {
        if (!(ComputeApiError.isInstance(err) && err.status === 409)) throw err;
        existing = await this.api.getFirewall(signal, this.ruleName);
      }
    }
    const diff = firewallMismatch(existing, want, port);
    if (diff.length > 0) {
      throw permanentError(
        `firewall rule ${this.ruleName} does not match the config (${diff.join('; ')}); it is not changed automatically: fix the rule or the config`,
        { code: GcpErrorCode.FirewallMismatch, details: { rule: this.ruleName, port } },
      );
    }
    this.#ok.add(port);
  }
}
