import { describe, expect, it } from 'vitest';
import { proxyPoolCrd } from './crd.js';
import { validateProxyPoolSpec } from './proxy-pool.js';

const template = { provider: 'local' };
const problem = (spec: unknown): string => {
  try {
    validateProxyPoolSpec(spec);
  } catch (err) {
    return (err as Error).message;
  }
  return '';
};

describe('ProxyPool spec.autoscale', () => {
  it('fills the defaults, with minReplicas 0 allowed', () => {
    const spec = validateProxyPoolSpec({
      replicas: 0,
      template,
      autoscale: { minReplicas: 0, maxReplicas: 5, targetActiveConnections: 10 },
    });
    expect(spec.autoscale).toEqual({
      scaler: 'Builtin',
      minReplicas: 0,
      maxReplicas: 5,
      targetActiveConnections: 10,
      scaleDownAfter: '5m',
      maxScaleUpStep: 10,
      maxScaleDownStep: 1,
      stepInterval: '15s',
      wakeTimeout: '30s',
    });
  });

  it('names both values when minReplicas exceeds maxReplicas', () => {
    expect(
      problem({
        replicas: 1,
        template,
        autoscale: { minReplicas: 4, maxReplicas: 2, targetActiveConnections: 1 },
      }),
    ).toContain(
      'spec.autoscale: spec.autoscale.minReplicas (4) must not exceed spec.autoscale.maxReplicas (2)',
    );
  });

  it('asks for a target per member unless an outside scaler sets replicas', () => {
    expect(problem({ replicas: 1, template, autoscale: { maxReplicas: 2 } })).toContain(
      'targetActiveConnections and/or targetRequestsPerSecond',
    );
    expect(problem({ replicas: 1, template, autoscale: { maxReplicas: 2, scaler: 'External' } })).toBe('');
    expect(
      problem({ replicas: 1, template, autoscale: { maxReplicas: 2, targetRequestsPerSecond: 5 } }),
    ).toBe('');
  });

  it('names a bad duration and a bad step with what was expected', () => {
    const msg = problem({
      replicas: 1,
      template,
      autoscale: { maxReplicas: 2, targetActiveConnections: 1, scaleDownAfter: 'soon', maxScaleUpStep: 0 },
    });
    expect(msg).toContain('spec.autoscale.scaleDownAfter: "soon" is not a duration such as 5m');
    expect(msg).toContain('spec.autoscale.maxScaleUpStep: must be at least 1, got 0');
  });

  it('takes a drain timeout as a duration and names a bad one', () => {
    const autoscale = { maxReplicas: 2, targetActiveConnections: 1 };
    expect(
      validateProxyPoolSpec({ replicas: 1, template, autoscale: { ...autoscale, drainTimeout: '90s' } })
        .autoscale?.drainTimeout,
    ).toBe('90s');
    expect(
      problem({ replicas: 1, template, autoscale: { ...autoscale, drainTimeout: '2 minutes' } }),
    ).toContain('spec.autoscale.drainTimeout: "2 minutes" is not a duration such as 2m');
  });

  it('holds rotation.minReady to maxReplicas, not to the current replicas, when autoscaling', () => {
    const autoscale = { minReplicas: 0, maxReplicas: 3, targetActiveConnections: 1 };
    expect(problem({ replicas: 0, template, autoscale, rotation: { minReady: 2 } })).toBe('');
    expect(problem({ replicas: 0, template, autoscale, rotation: { minReady: 4 } })).toContain(
      'spec.rotation.minReady must not exceed spec.autoscale.maxReplicas',
    );
    expect(problem({ replicas: 1, template, rotation: { minReady: 2 } })).toContain(
      'spec.rotation.minReady must not exceed spec.replicas',
    );
  });

  it('gives the CRD the scale subresource and the rules as CEL', () => {
    const v = proxyPoolCrd().spec.versions[0]!;
    expect(v.subresources).toEqual({
      status: {},
      scale: {
        specReplicasPath: '.spec.replicas',
        statusReplicasPath: '.status.replicas',
        labelSelectorPath: '.status.selector',
      },
    });
    const spec = (v.schema.openAPIV3Schema.properties as Record<string, Record<string, unknown>>).spec!;
    const autoscale = (spec.properties as Record<string, Record<string, unknown>>).autoscale!;
    const rules = autoscale['x-kubernetes-validations'] as { rule: string; message: string }[];
    expect(rules[0]).toEqual({
      rule: 'self.minReplicas <= self.maxReplicas',
      message: 'spec.autoscale.minReplicas must not exceed spec.autoscale.maxReplicas',
    });
  });
});
