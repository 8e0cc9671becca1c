import { afterEach, describe, expect, it } from 'vitest';
import { rejection, request, type Setup, setup } from './helpers.js';

let s: Setup;
afterEach(async () => {
  await s?.close();
});

const fw = { enabled: true, sourceRanges: ['198.51.100.0/24'] };

describe('firewall management', () => {
  it('creates the rule once, before the first insert', async () => {
    s = await setup({ firewall: fw, networkTag: 'proxy' });
    await s.provider.create(request());
    await s.provider.create(request());
    const rule = s.fake.firewall(s.provider.firewallRule)!;
    expect(rule).toMatchObject({
      name: 'egress-proxy-gcp-test',
      direction: 'INGRESS',
      sourceRanges: ['198.51.100.0/24'],
      targetTags: ['proxy'],
      allowed: [{ IPProtocol: 'tcp', ports: ['3128'] }],
    });
    const steps = s.fake.calls.map((c) => c.step);
    expect(steps.filter((x) => x === 'firewalls.insert')).toHaveLength(1);
    expect(steps.indexOf('firewalls.insert')).toBeLessThan(steps.indexOf('instances.insert'));
  });

  it('accepts an existing matching rule without touching it', async () => {
    s = await setup({ firewall: fw });
    s.fake.putFirewall({
      name: 'egress-proxy-gcp-test',
      direction: 'INGRESS',
      sourceRanges: ['198.51.100.0/24'],
      targetTags: ['egress-proxy'],
      allowed: [{ IPProtocol: 'tcp', ports: ['3000-3200'] }],
    });
    await s.provider.create(request());
    expect(s.fake.calls.filter((c) => c.step === 'firewalls.insert')).toHaveLength(0);
  });

  it('never widens a rule that does not match: Permanent, rule unchanged, nothing inserted', async () => {
    s = await setup({ firewall: fw });
    const existing = {
      name: 'egress-proxy-gcp-test',
      direction: 'INGRESS',
      sourceRanges: ['198.51.100.0/24'],
      targetTags: ['egress-proxy'],
      allowed: [{ IPProtocol: 'tcp', ports: ['8080'] }],
    };
    s.fake.putFirewall(existing);
    const e = await rejection(s.provider.create(request()));
    expect(e).toMatchObject({ kind: 'Permanent', code: 'FIREWALL_MISMATCH' });
    expect(e.message).toContain('tcp:3128');
    expect(s.fake.firewall('egress-proxy-gcp-test')).toEqual(existing);
    expect(s.fake.calls.filter((c) => c.step === 'instances.insert')).toHaveLength(0);
  });

  it('does nothing with firewalls when disabled', async () => {
    s = await setup();
    await s.provider.create(request());
    expect(s.fake.calls.some((c) => c.step.startsWith('firewalls.'))).toBe(false);
  });
});
