import { InstanceState, instanceName } from '@egress-proxies/contract';
import { describe, expect, it } from 'vitest';
import {
  Driver,
  newProxy,
  referenceHandle,
  TOKEN,
  withOverrides,
} from '../../../test/support/reconcile-fixture.js';
import { getCondition } from './conditions.js';
import { formatWindow, READINESS_WINDOW_MS, readinessWindowMs } from './readiness-window.js';

const name = instanceName('ns1', 'p1');
const MIN = 60_000;

/** A reference provider whose get can be told to keep an instance Provisioning, without an address. */
function stuckProvider(readiness?: 'immediate' | 'provisioning-window') {
  const { handle, backend } = referenceHandle();
  const ctl = { stuck: true };
  const h = withOverrides(handle, {
    get: async (inner, id, o) => {
      const inst = await inner(id, o);
      if (!ctl.stuck) return inst;
      const { ip: _ip, ...rest } = inst;
      return { ...rest, state: InstanceState.Provisioning };
    },
  });
  const provider = readiness
    ? Object.assign(Object.create(h.provider), { profile: { ...h.provider.profile, readiness } })
    : h.provider;
  return { handle: { ...h, provider }, backend, ctl };
}

describe('reconcileProxy: the readiness window', () => {
  it('takes the window from the profile readiness axis', () => {
    expect(readinessWindowMs({ readiness: 'immediate' })).toBe(READINESS_WINDOW_MS.immediate);
    expect(readinessWindowMs({ readiness: 'provisioning-window' })).toBe(15 * MIN);
    expect(formatWindow(15 * MIN)).toBe('15m');
    expect(formatWindow(3_723_000)).toBe('1h2m3s');
  });

  it('waits within the window, then says so (condition and event) and replaces the instance', async () => {
    const { handle, backend, ctl } = stuckProvider();
    const d = new Driver(newProxy(), [handle]);
    await d.step();
    await d.step();
    await d.step();
    expect(d.proxy.status?.phase).toBe('Provisioning');
    expect(d.proxy.status?.instanceCreatedTime).toBe('2026-01-01T00:00:00Z');
    d.nowMs += 15 * MIN - 1000;
    await d.step();
    expect(d.reasons()).not.toContain('ReadinessWindowExceeded');
    d.nowMs += 1000;
    await d.step();
    const c = getCondition(d.proxy.status?.conditions, 'Provisioned');
    expect(c?.reason).toBe('ReadinessWindowExceeded');
    expect(c?.message).toMatch(
      /not usable 15m after its create \(the instance is starting\); the readiness window of provider ref is 15m, replacing it/,
    );
    expect(d.events.find((e) => e.reason === 'ReadinessWindowExceeded')?.type).toBe('Warning');
    backend.clearCalls();
    ctl.stuck = false;
    await d.until('Ready');
    const steps = backend.calls().map((x) => x.step);
    expect(steps).toContain('undefine');
    expect(steps).toContain('define');
    expect(backend.domains()).toHaveLength(1);
  });

  it('gives an immediate-readiness provider a shorter window', async () => {
    const { handle } = stuckProvider('immediate');
    const d = new Driver(newProxy(), [handle]);
    await d.step();
    await d.step();
    d.nowMs += 3 * MIN;
    await d.step();
    expect(d.reasons()).toContain('ReadinessWindowExceeded');
  });

  it('gives a Stopped instance a grace period: back to Running within it keeps the instance', async () => {
    const { handle, backend } = referenceHandle();
    const d = new Driver(newProxy(), [handle]);
    await d.until('Ready');
    backend.stopOutOfBand('alpha', name);
    await d.step();
    expect(d.proxy.status?.stoppedSince).toBe('2026-01-01T00:00:00Z');
    expect(d.proxy.status?.message).toMatch(
      /is Stopped since 2026-01-01T00:00:00Z; replaced if it does not run again within 5m/,
    );
    expect(d.proxy.status?.healthy).toBe(false);
    d.nowMs += 4 * MIN;
    await d.step();
    expect(backend.domains()[0]?.state).toBe('shutoff');
    await backend.startDomain('alpha', name, { token: TOKEN });
    backend.clearCalls();
    await d.until('Ready');
    expect(backend.calls().map((x) => x.step)).not.toContain('undefine');
    expect(d.proxy.status?.stoppedSince).toBeUndefined();
    expect(d.reasons().filter((r) => r === 'InstanceStopped')).toHaveLength(1);
  });

  it('replaces a Terminated instance at once', async () => {
    const { handle, backend } = referenceHandle();
    const terminated = withOverrides(handle, {
      get: async (inner, id, o) => ({ ...(await inner(id, o)), state: InstanceState.Terminated }),
    });
    const d = new Driver(newProxy(), [handle]);
    await d.until('Ready');
    d.handles.set('ref', terminated);
    await d.step();
    expect(d.reasons()).toContain('InstanceTerminated');
    d.handles.set('ref', handle);
    backend.clearCalls();
    await d.until('Ready');
    expect(backend.calls().map((x) => x.step)).toContain('define');
  });
});
