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
