import { describe, expect, it } from 'vitest';
import { parseDuration } from './duration.js';
import { ProxySpecError, validateProxySpec } from './validate.js';

const issues = (spec: unknown) => {
  try {
    validateProxySpec(spec);
  } catch (err) {
    if (ProxySpecError.isInstance(err)) return err.issues.map((i) => `${i.path}: ${i.message}`);
    throw err;
  }
  return [];
};

describe('validateProxySpec', () => {
  it('never quotes a cloud-init value in an issue, whatever shape it has', () => {
    const sentinel = 'chpasswd-SENTINEL-7f3a';
    for (const cloudInit of [
      `#cloud-config\n${sentinel}`,
      { inline: 42, note: sentinel },
      { inline: [sentinel] },
    ]) {
      const found = issues({ provider: 'p', cloudInit });
      expect(found.length, JSON.stringify(found)).toBeGreaterThan(0);
      for (const line of found) {
        expect(line).toMatch(/^spec\.cloudInit/);
        expect(line.toLowerCase()).not.toContain(sentinel.toLowerCase());
      }
    }
  });

  it('fills the defaults', () => {
    expect(validateProxySpec({ provider: 'kvm-home', probe: { target: 'https://ifconfig.me/ip' } })).toEqual({
      mode: 'Managed',
      provider: 'kvm-home',
      port: 3128,
      probe: { target: 'https://ifconfig.me/ip', interval: '60s', timeout: '10s', retries: 2 },
    });
    expect(validateProxySpec({ provider: 'p', cloudInit: { secretRef: { name: 's' } } }).cloudInit).toEqual({
      secretRef: { name: 's', key: 'user-data' },
    });
  });

  it('names every bad field with the bad value', () => {
    expect(
      issues({
        mode: 'Magic',
        provider: 'Bad_Name',
        port: 0,
        placement: { zone: 3 },
        probe: { target: 'ftp://x', interval: 'soon' },
      }),
    ).toEqual([
      'spec.mode: must be one of Managed, External, got "Magic"',
      'spec.provider: "Bad_Name" is not a provider name (a DNS-1123 label)',
      'spec.placement.zone: expected a string, got integer 3',
      'spec.port: must be at least 1, got 0',
      'spec.probe.target: "ftp://x" is not an http:// or https:// URL',
      'spec.probe.interval: "soon" is not a duration such as 30s or 1m',
    ]);
  });

  it('rejects unknown fields, suggesting the likely one and naming the known ones', () => {
    expect(issues({ provider: 'p', prot: 80 })).toEqual([
      'spec.prot: unknown field (did you mean "port"?) (known: mode, provider, address, placement, port, cloudInit, probe)',
    ]);
    expect(issues({ provider: 'p', probe: { tagret: 'http://x/' } })[0]).toMatch(
      /^spec\.probe\.tagret: unknown field \(did you mean "target"\?\) \(known: /,
    );
    expect(issues({ provider: 'p', colour: 'blue' })).toEqual([
      'spec.colour: unknown field (known: mode, provider, address, placement, port, cloudInit, probe)',
    ]);
  });

  it('applies the cross-field rules', () => {
    expect(issues({ mode: 'Managed' })).toEqual(['spec: spec.provider is required when mode is Managed']);
    expect(issues({ mode: 'External' })).toEqual([
      'spec: spec.address (host:port) is required when mode is External',
    ]);
    expect(issues({ mode: 'External', address: 'h:1', provider: 'p' })).toEqual([
      'spec: spec.provider, spec.placement and spec.cloudInit apply only to mode Managed',
    ]);
    expect(issues({ provider: 'p', cloudInit: { inline: 'x', secretRef: { name: 's' } } })).toEqual([
      'spec.cloudInit: exactly one of cloudInit.inline and cloudInit.secretRef must be set',
    ]);
    expect(issues({ provider: 'p', cloudInit: {} })).toHaveLength(1);
  });

  it('names the cloud-init path and type but not its value', () => {
    const msg = issues({ provider: 'p', cloudInit: { inline: 5 } })[0]!;
    expect(msg).toBe('spec.cloudInit.inline: expected a string, got integer (value not shown: secret field)');
  });

  it('rejects a missing spec', () => {
    expect(issues(undefined)).toEqual(['spec: required']);
  });
});

describe('parseDuration', () => {
  it('parses compound durations and rejects garbage naming it', () => {
    expect(parseDuration('1m30s')).toBe(90_000);
    expect(parseDuration('500ms')).toBe(500);
    expect(parseDuration('2h')).toBe(7_200_000);
    expect(() => parseDuration('1 minute')).toThrow('invalid duration "1 minute"');
  });
});
