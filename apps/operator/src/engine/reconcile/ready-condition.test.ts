import { describe, expect, it } from 'vitest';
import { Driver, newProxy, referenceHandle } from '../../../test/support/reconcile-fixture.js';
import { getCondition } from './conditions.js';

const probe = { target: 'http://echo.test/ip', interval: '30s', timeout: '2s', retries: 0 };

describe('reconcileProxy: the Ready condition', () => {
  it('is False with the phase as reason until Ready, then True', async () => {
    const { handle } = referenceHandle();
    const d = new Driver(newProxy({ probe }), [handle]);
    const seen: string[] = [];
    d.probeOk = false;
    for (let i = 0; i < 4; i++) {
      await d.step();
      const c = getCondition(d.proxy.status?.conditions, 'Ready');
      seen.push(`${c?.status}/${c?.reason}`);
    }
    expect(seen).toEqual(['False/Pending', 'False/Provisioning', 'False/Running', 'False/Running']);
    d.probeOk = true;
    await d.step();
    const ready = getCondition(d.proxy.status?.conditions, 'Ready');
    expect(ready).toMatchObject({ status: 'True', reason: 'Ready', message: 'ready', observedGeneration: 1 });
  });

  it('goes False when a Ready proxy starts failing its probe, and on a Permanent failure', async () => {
    const { handle } = referenceHandle();
    const d = new Driver(newProxy({ probe }), [handle]);
    await d.until('Ready');
    d.probeOk = false;
    d.nowMs += 60_000;
    await d.step();
    expect(getCondition(d.proxy.status?.conditions, 'Ready')).toMatchObject({
      status: 'False',
      reason: 'Running',
    });
    d.changeSpec({ placement: { zone: 'alpha', machineType: 'huge', image: 'debian-12' } });
    await d.until('Failed');
    expect(getCondition(d.proxy.status?.conditions, 'Ready')).toMatchObject({
      status: 'False',
      reason: 'Failed',
    });
  });
});
