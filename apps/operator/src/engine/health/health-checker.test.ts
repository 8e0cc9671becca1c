import { createReference, referenceConfig } from '@egress-proxies/conformance/reference';
import { describe, expect, it } from 'vitest';
import { referenceHandle } from '../../../test/support/reconcile-fixture.js';
import type { ProviderHealthStatus } from '../../api/provider-health.js';
import type { HealthStore } from '../store/proxy-store.js';
import { HealthChecker } from './health-checker.js';

function store() {
  const written = new Map<string, ProviderHealthStatus>();
  const s: HealthStore = {
    writeHealth: async (p, st) => {
      written.set(p, st);
    },
    pruneHealth: async () => {},
    providerEvent: async () => {},
  };
  return { s, written };
}

const now = () => new Date('2026-03-01T10:00:00.123Z');

describe('HealthChecker', () => {
  it('writes one entry per target with the reasons and details', async () => {
    const { handle, backend } = referenceHandle();
    const { checker } = createReference('ref', referenceConfig('ref-token-secret-123'), backend);
    backend.breakHost('beta', 'auth');
    const { s, written } = store();
    const status = await new HealthChecker({ store: s, now }).run({ ...handle, checker });
    expect(status.ready).toBe(false);
    expect(status.summary).toBe('2/3');
    expect(status.lastCheckTime).toBe('2026-03-01T10:00:00Z');
    expect(status.targets?.map((t) => [t.target, t.ready, t.reason])).toEqual([
      ['alpha', true, 'Ready'],
      ['beta', false, 'Unauthorized'],
      ['gamma', true, 'Ready'],
    ]);
    expect(status.targets?.[0]?.details?.pool).toBe('default');
    expect(written.get('ref')).toEqual(status);
    expect(JSON.stringify(status)).not.toContain('ref-token-secret-123');
  });

  it('says so when a provider has no Checker, or the check throws', async () => {
    const { handle } = referenceHandle();
    const { s } = store();
    const h = new HealthChecker({ store: s, now });
    expect((await h.status(handle)).message).toBe('this provider has no Checker');
    const failing = { ...handle, checker: { check: async () => Promise.reject(new Error('exploded')) } };
    expect(await h.status(failing)).toMatchObject({ ready: false, message: 'the check failed: exploded' });
  });
});

describe('HealthChecker: the Ready condition', () => {
  it('is True when every target is ready, False naming the failing ones, and keeps its transition time', async () => {
    const { handle, backend } = referenceHandle();
    const { checker } = createReference('ref', referenceConfig('ref-token-secret-123'), backend);
    const { s } = store();
    let t = Date.parse('2026-03-01T10:00:00Z');
    const h = new HealthChecker({ store: s, now: () => new Date(t) });
    const slot = { ...handle, checker };
    const ok = await h.run(slot);
    expect(ok.conditions).toEqual([
      {
        type: 'Ready',
        status: 'True',
        reason: 'AllTargetsReady',
        message: '3/3 targets ready',
        lastTransitionTime: '2026-03-01T10:00:00Z',
      },
    ]);
    t += 60_000;
    backend.breakHost('beta', 'auth');
    const bad = await h.run(slot);
    expect(bad.conditions?.[0]).toMatchObject({
      status: 'False',
      reason: 'TargetsNotReady',
      message: 'not ready: beta: Unauthorized',
      lastTransitionTime: '2026-03-01T10:01:00Z',
    });
    t += 60_000;
    expect((await h.run(slot)).conditions?.[0]?.lastTransitionTime).toBe('2026-03-01T10:01:00Z');
    const failing = { ...handle, checker: { check: async () => Promise.reject(new Error('exploded')) } };
    expect((await h.run(failing)).conditions?.[0]).toMatchObject({ status: 'False', reason: 'CheckFailed' });
  });
});
