import { describe, expect, it } from 'vitest';
import { parseGcpConfig } from './config.js';
import { buildFirewallRule, firewallMismatch, firewallRuleName } from './firewall.js';

const cfg = parseGcpConfig({
  project: 'my-project',
  networkTag: 'proxy',
  firewall: { enabled: true, sourceRanges: ['10.0.0.0/8'] },
});

describe('firewall rule', () => {
  it('names one rule per provider entry', () => {
    expect(firewallRuleName('gcp-eu')).toBe('egress-proxy-gcp-eu');
    expect(firewallRuleName('GCP.Prod')).toMatch(/^egress-proxy-gcp-prod-[0-9a-f]{8}$/);
    expect(firewallRuleName('x'.repeat(80))).toMatch(/^[a-z]([-a-z0-9]{0,61}[a-z0-9])?$/);
  });

  it('allows the port from the configured ranges to the tag', () => {
    expect(buildFirewallRule(cfg, 'r', 3128)).toMatchObject({
      name: 'r',
      network: 'global/networks/default',
      direction: 'INGRESS',
      sourceRanges: ['10.0.0.0/8'],
      targetTags: ['proxy'],
      allowed: [{ IPProtocol: 'tcp', ports: ['3128'] }],
    });
  });

  it('accepts a matching rule, including a port range that covers the port', () => {
    const want = buildFirewallRule(cfg, 'r', 3128);
    expect(firewallMismatch(want, want, 3128)).toEqual([]);
    expect(
      firewallMismatch({ ...want, allowed: [{ IPProtocol: 'tcp', ports: ['3000-4000'] }] }, want, 3128),
    ).toEqual([]);
  });

  it('names every difference and never treats a wider rule as fine', () => {
    const want = buildFirewallRule(cfg, 'r', 3128);
    const diff = firewallMismatch(
      {
        ...want,
        sourceRanges: ['0.0.0.0/0'],
        allowed: [{ IPProtocol: 'tcp', ports: ['8080'] }],
        targetTags: ['other'],
      },
      want,
      3128,
    );
    expect(diff).toHaveLength(3);
    expect(diff.join(' ')).toContain('tcp:3128');
    expect(diff.join(' ')).toContain('0.0.0.0/0');
    expect(diff.join(' ')).toContain('proxy');
    expect(firewallMismatch({ ...want, disabled: true }, want, 3128)).toEqual(['the rule is disabled']);
  });
});
