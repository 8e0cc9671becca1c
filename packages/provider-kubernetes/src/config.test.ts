import { ErrorCode, isPermanent, type ProviderError } from '@egress-proxies/contract';
import { describe, expect, it } from 'vitest';
import { KUBERNETES_DEFAULTS, parseKubernetesConfig } from './config.js';

describe('parseKubernetesConfig', () => {
  it('fills the defaults', () => {
    const c = parseKubernetesConfig({});
    expect(c.image).toBe(KUBERNETES_DEFAULTS.image);
    expect(c.namespacePolicy).toBe('proxy');
    expect(c.allowedSourceCIDRs).toEqual([...KUBERNETES_DEFAULTS.allowedSourceCIDRs]);
    expect(c.resources.requests).toEqual({ cpu: '50m', memory: '64Mi' });
  });

  it('accepts a fixed namespace', () => {
    expect(parseKubernetesConfig({ namespacePolicy: 'fixed', namespace: 'proxies' }).namespace).toBe(
      'proxies',
    );
  });

  it('rejects bad fields as Permanent INVALID_CONFIG naming the path and the value', () => {
    let caught: unknown;
    try {
      parseKubernetesConfig({ namespacePolicy: 'fixed', allowedSourceCIDRs: ['nope'] });
    } catch (err) {
      caught = err;
    }
    expect(isPermanent(caught)).toBe(true);
    const e = caught as ProviderError;
    expect(e.code).toBe(ErrorCode.InvalidConfig);
    expect(e.message).toContain('namespace');
    expect(e.message).toContain('nope');
  });
});

/** The `kubernetes.<path>: <message>` lines of the one config error. */
function lines(input: unknown): string[] {
  try {
    parseKubernetesConfig(input, 'k8s');
  } catch (err) {
    expect((err as ProviderError).code).toBe(ErrorCode.InvalidConfig);
    return (err as ProviderError).reason.split('\n').slice(1);
  }
  throw new Error('expected the block to be rejected');
}

describe('the one config-error format', () => {
  it('names a typo with a did-you-mean, a wrong type and an out-of-range value', () => {
    expect(lines({ namespacePolcy: 'fixed' })[0]).toMatch(
      /^kubernetes\.namespacePolcy: unknown key "namespacePolcy" \(did you mean "namespacePolicy"\?\)/,
    );
    expect(lines({ image: 7 })).toEqual(['kubernetes.image: expected string, got number 7']);
    expect(lines({ allowedSourceCIDRs: [] })).toEqual([
      'kubernetes.allowedSourceCIDRs: needs at least 1 entry, got 0',
    ]);
  });

  it('words each rule with the bad value', () => {
    expect(lines({ namespacePolicy: 'fixed' })).toEqual([
      'kubernetes.namespace: required when namespacePolicy is "fixed"',
    ]);
    expect(lines({ resources: { requests: { memory: '1Gi' }, limits: { memory: '512Mi' } } })).toEqual([
      'kubernetes.resources.requests.memory: request "1Gi" exceeds limit "512Mi"',
    ]);
    expect(lines({ resources: { requests: { cpu: 'half' } } })).toEqual([
      'kubernetes.resources.requests.cpu: "half" is not a valid cpu quantity (for example 250m, 1, 128Mi)',
    ]);
    expect(lines({ tolerations: [{ key: 'a', operator: 'Exists', value: 'b' }] })).toEqual([
      'kubernetes.tolerations[0].value: must be empty when operator is Exists, got "b"',
    ]);
  });
});
