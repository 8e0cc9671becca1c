import { formatMark } from '@egress-proxies/conformance/reference';
import { instanceName } from '@egress-proxies/contract';
import { describe, expect, it } from 'vitest';
import { Driver, newProxy, referenceHandle, TOKEN } from '../../../test/support/reconcile-fixture.js';
import { FINALIZER, FORCE_DELETE_ANNOTATION } from '../../api/group.js';
import { getCondition } from './conditions.js';

const probe = { target: 'http://echo.test/ip', interval: '30s', timeout: '2s', retries: 0 };

describe('reconcileProxy: managed flow', () => {
  it('adds the finalizer before any provider call, then goes Provisioning, Running, Ready', async () => {
    const { handle, backend } = referenceHandle();
    const d = new Driver(newProxy({ probe }), [handle]);
    const first = await d.step();
    expect(first.finalizer).toBe('add');
    expect(d.proxy.status?.phase).toBe('Pending');
    expect(backend.calls()).toEqual([]);
    await d.until('Ready');
    const st = d.proxy.status!;
    expect(st.providerID).toBe(`hosts/alpha/domains/${instanceName('ns1', 'p1')}`);
    expect(st.ip).toMatch(/^192\.0\.2\./);
    expect(st.healthy).toBe(true);
    expect(st.egressIP).toBe('203.0.113.9');
    expect(st.observedGeneration).toBe(1);
    expect(getCondition(st.conditions, 'Provisioned')?.status).toBe('True');
    expect(getCondition(st.conditions, 'Healthy')?.reason).toBe('ProbeSucceeded');
    expect(d.reasons()).toEqual(expect.arrayContaining(['Created', 'Running', 'Ready']));
    expect(d.probes[0]).toMatchObject({ host: st.ip, port: 3128, target: probe.target, timeoutMs: 2000 });
    // The mark carries the owner's uid and this installation.
    const dom = backend.domains()[0]!;
    expect(dom.metadata).toContain('uid="uid-p1"');
    expect(dom.metadata).toContain('installation="install-A"');
    // Ready and probed: the next pass waits for the probe interval.
    expect(d.last?.requeue).toEqual({ type: 'after', ms: 30_000 });
  });

  it('probes and reports the port the provider allocated, not spec.port', async () => {
    const { handle } = referenceHandle();
    const inner = handle.provider;
    // A provider running several proxies on one address reports each one's port in get.
    const provider = new Proxy(inner, {
      get(target, key) {
        if (key === 'get')
          return async (...args: Parameters<typeof inner.get>) => ({
            ...(await inner.get(...args)),
            port: 21001,
          });
        const v = Reflect.get(target, key, target);
        return typeof v === 'function' ? v.bind(target) : v;
      },
    });
    const d = new Driver(newProxy({ probe }), [{ ...handle, provider }]);
    await d.until('Ready');
    expect(d.probes.map((p) => p.port)).toEqual([21001]);
    expect(d.last?.endpoint).toEqual({ host: d.proxy.status?.ip, port: 21001 });
    expect(d.proxy.status?.port).toBe(21001);
    expect(d.proxy.status?.message).toBe('ready');
    expect(d.events.find((e) => e.reason === 'Running')?.message).toMatch(/runs at 192\.0\.2\.\d+:21001$/);
  });

  it('reports spec.port as the endpoint when the provider allocates none', async () => {
    const { handle } = referenceHandle();
    const d = new Driver(newProxy({ probe, port: 8080 }), [handle]);
    await d.until('Ready');
    expect(d.last?.endpoint?.port).toBe(8080);
    expect(d.probes[0]?.port).toBe(8080);
    expect(d.proxy.status && 'port' in d.proxy.status).toBe(false);
  });

  it('passes the phases in order: Pending, Provisioning, Running, Ready', async () => {
    const { handle } = referenceHandle();
    const d = new Driver(newProxy({ probe }), [handle]);
    const phases: string[] = [];
    d.probeOk = false;
    for (let i = 0; i < 4; i++) {
      await d.step();
      phases.push(d.proxy.status!.phase!);
    }
    d.probeOk = true;
    await d.step();
    phases.push(d.proxy.status!.phase!);
    expect(phases).toEqual(['Pending', 'Provisioning', 'Running', 'Running', 'Ready']);
    expect(d.reasons()).toContain('ProbeFailed');
    expect(d.events.filter((e) => e.reason === 'ProbeFailed')).toHaveLength(1);
  });

  it('stays Running (not Ready) while the probe fails and says why', async () => {
    const { handle } = referenceHandle();
    const d = new Driver(newProxy({ probe }), [handle]);
    d.probeOk = false;
    for (let i = 0; i < 4; i++) await d.step();
    const st = d.proxy.status!;
    expect(st.phase).toBe('Running');
    expect(st.healthy).toBe(false);
    expect(st.message).toContain('connection refused');
    expect(getCondition(st.conditions, 'Healthy')).toMatchObject({ status: 'False', reason: 'ProbeFailed' });
    expect(d.last?.requeue).toEqual({ type: 'after', ms: 10_000 });
  });

  it('is Ready without probing when no probe is configured, Healthy Unknown', async () => {
    const { handle } = referenceHandle();
    const d = new Driver(newProxy(), [handle]);
    await d.until('Ready');
    expect(d.probes).toHaveLength(0);
    expect(getCondition(d.proxy.status!.conditions, 'Healthy')).toMatchObject({
      status: 'Unknown',
      reason: 'NotProbed',
    });
  });

  it('writes nothing for a settled Proxy whose status comes back with its keys in another order', async () => {
    const { handle } = referenceHandle();
    const d = new Driver(newProxy({ probe }), [handle]);
    await d.until('Ready');
    const sortKeys = (v: unknown): unknown =>
      Array.isArray(v)
        ? v.map(sortKeys)
        : v && typeof v === 'object'
          ? Object.fromEntries(
              Object.entries(v as Record<string, unknown>)
                .sort(([a], [b]) => (a < b ? -1 : 1))
                .map(([k, x]) => [k, sortKeys(x)]),
            )
          : v;
    d.proxy.status = sortKeys(d.proxy.status) as typeof d.proxy.status;
    d.nowMs += 1000;
    const r = await d.step();
    expect(r.status).toBeUndefined();
  });

  it('does not probe again before the interval, and probes once it has passed', async () => {
    const { handle } = referenceHandle();
    const d = new Driver(newProxy({ probe }), [handle]);
    await d.until('Ready');
    const n = d.probes.length;
    d.nowMs += 10_000;
    await d.step();
    expect(d.probes.length).toBe(n);
    expect(d.last?.requeue).toEqual({ type: 'after', ms: 20_000 });
    d.nowMs += 20_000;
    await d.step();
    expect(d.probes.length).toBe(n + 1);
  });

  it('recreates the instance when get says NotFound', async () => {
    const { handle, backend } = referenceHandle();
    const d = new Driver(newProxy(), [handle]);
    await d.until('Ready');
    backend.removeDomainOutOfBand('alpha', instanceName('ns1', 'p1'));
    await d.step();
    expect(d.proxy.status?.providerID).toBeUndefined();
    expect(d.reasons()).toContain('InstanceGone');
    await d.until('Ready');
    expect(backend.domains()).toHaveLength(1);
  });

  it('replaces a stopped instance past its grace period: delete, then create', async () => {
    const { handle, backend } = referenceHandle();
    const d = new Driver(newProxy(), [handle]);
    await d.until('Ready');
    backend.stopOutOfBand('alpha', instanceName('ns1', 'p1'));
    await d.step();
    expect(d.reasons()).toContain('InstanceStopped');
    d.nowMs += 5 * 60_000;
    await d.until('Ready');
    expect(backend.domains().map((x) => x.state)).toEqual(['running']);
  });

  it('passes the cloud-init from a Secret and never puts it into status or events', async () => {
    const { handle, backend } = referenceHandle();
    const d = new Driver(newProxy({ cloudInit: { secretRef: { name: 'ci', key: 'user-data' } } }), [handle]);
    await d.step();
    await d.step();
    expect(d.proxy.status?.message).toContain('secret ci has no key');
    expect(d.last?.requeue).toEqual({ type: 'backoff', tier: 'transient' });
    d.secrets.set('ci/user-data', '#cloud-config\npassword: hunter2-secret');
    await d.until('Ready');
    const seed = backend.volumes().find((v) => v.kind === 'seed');
    expect(Buffer.from(seed?.content ?? []).toString()).toContain('hunter2-secret');
    const text = JSON.stringify([d.proxy.status, d.events]);
    expect(text).not.toContain('hunter2');
  });
});

describe('reconcileProxy: spec changes', () => {
  it('replaces the instance on a placement change without ever holding two', async () => {
    const { handle, backend } = referenceHandle();
    const d = new Driver(newProxy(), [handle]);
    await d.until('Ready');
    const oldId = d.proxy.status!.providerID;
    let peak = 0;
    d.changeSpec({ placement: { zone: 'beta', machineType: 'small', image: 'debian-12' } });
    for (
      let i = 0;
      i < 10 && !(d.proxy.status?.phase === 'Ready' && d.proxy.status.providerID !== oldId);
      i++
    ) {
      await d.step();
      peak = Math.max(peak, backend.domains().length);
    }
    expect(d.proxy.status?.providerID).toBe(`hosts/beta/domains/${instanceName('ns1', 'p1')}`);
    expect(peak).toBe(1);
    expect(backend.domains().map((x) => x.host)).toEqual(['beta']);
    expect(d.proxy.status?.instanceGeneration).toBe(2);
    expect(d.reasons()).toContain('Replacing');
  });

  it('does not replace the instance when only the probe changes', async () => {
    const { handle, backend } = referenceHandle();
    const d = new Driver(newProxy(), [handle]);
    await d.until('Ready');
    const id = d.proxy.status!.providerID;
    d.changeSpec({ probe });
    await d.step();
    expect(d.proxy.status?.providerID).toBe(id);
    expect(d.proxy.status?.observedGeneration).toBe(2);
    expect(backend.domains()).toHaveLength(1);
    expect(d.reasons()).not.toContain('Replacing');
  });

  it('moves the instance to another provider: deleted on the old one, created on the new one', async () => {
    const a = referenceHandle('ref');
    const b = referenceHandle('ref-b');
    const d = new Driver(newProxy(), [a.handle, b.handle]);
    await d.until('Ready');
    d.changeSpec({ provider: 'ref-b' });
    for (let i = 0; i < 10 && d.proxy.status?.instanceProvider !== 'ref-b'; i++) await d.step();
    await d.until('Ready');
    expect(a.backend.domains()).toHaveLength(0);
    expect(b.backend.domains()).toHaveLength(1);
    expect(d.proxy.status?.instanceProvider).toBe('ref-b');
  });

  it('removes the instance when a Proxy switches to External, then drops the finalizer', async () => {
    const { handle, backend } = referenceHandle();
    const d = new Driver(newProxy(), [handle]);
    await d.until('Ready');
    d.changeSpec({ mode: 'External', provider: undefined, placement: undefined, address: '10.0.0.9:3128' });
    const r = await d.step();
    expect(backend.domains()).toHaveLength(0);
    expect(r.finalizer).toBe('remove');
    expect(d.proxy.status?.providerID).toBeUndefined();
    expect(d.proxy.status?.ip).toBe('10.0.0.9');
  });

  it('waits for an instance that is slow to go before creating the replacement', async () => {
    const { handle, backend } = referenceHandle();
    const d = new Driver(newProxy(), [handle]);
    await d.until('Ready');
    const name = instanceName('ns1', 'p1');
    // A provider whose delete returns early: the instance is still there when delete returns.
    const realDelete = handle.provider.delete.bind(handle.provider);
    let deletes = 0;
    handle.provider.delete = async () => {
      deletes += 1;
    };
    d.changeSpec({ port: 8080 });
    await d.step();
    expect(d.last?.requeue).toEqual({ type: 'after', ms: 1000 });
    expect(d.proxy.status?.message).toContain('waiting for instance');
    expect(backend.domains()).toHaveLength(1);
    handle.provider.delete = realDelete;
    await d.until('Ready');
    expect(deletes).toBe(1);
    expect(backend.domains().map((x) => x.name)).toEqual([name]);
  });
});

describe('reconcileProxy: error classes', () => {
  it('latches a Permanent error as Failed until the generation changes', async () => {
    const { handle, backend } = referenceHandle();
    const d = new Driver(
      newProxy({ placement: { zone: 'alpha', machineType: 'huge', image: 'debian-12' } }),
      [handle],
    );
    await d.step();
    await d.step();
    const st = d.proxy.status!;
    expect(st.phase).toBe('Failed');
    expect(st.message).toContain('unknown machine type "huge"');
    expect(st.message).toMatch(/; next attempt at 2026-01-01T00:30:00Z$/);
    expect(d.last?.requeue).toEqual({ type: 'after', ms: 30 * 60_000 });
    expect(d.last?.outcome).toBe('permanent');
    backend.clearCalls();
    const latched = await d.step();
    expect(latched.outcome).toBe('latched');
    expect(latched.status).toBeUndefined();
    expect(latched.requeue).toEqual({ type: 'after', ms: 30 * 60_000 });
    expect(d.events.filter((e) => e.reason === 'Failed')).toHaveLength(1);
    d.changeSpec({ placement: { zone: 'alpha', machineType: 'small', image: 'debian-12' } });
    await d.until('Ready');
    expect(d.proxy.status?.failure).toBeUndefined();
  });

  it('releases the latch when the provider config entry changes', async () => {
    const { handle, backend } = referenceHandle();
    const d = new Driver(newProxy(), [handle]);
    backend.breakHost('alpha', 'auth');
    await d.step();
    await d.step();
    expect(d.proxy.status?.phase).toBe('Failed');
    expect((await d.step()).outcome).toBe('latched');
    backend.breakHost('alpha', undefined);
    // Same fingerprint: still latched even though the backend would work now.
    expect((await d.step()).outcome).toBe('latched');
    d.handles.set('ref', { ...handle, fingerprint: 'fp-2' });
    await d.until('Ready');
  });

  it('fails with the configured names when the provider is missing, and recovers when it appears', async () => {
    const { handle } = referenceHandle('other');
    const d = new Driver(newProxy({ provider: 'ref' }), [handle]);
    await d.step();
    await d.step();
    expect(d.proxy.status?.phase).toBe('Failed');
    expect(d.proxy.status?.message).toBe('provider "ref" is not configured (configured: other)');
    expect((await d.step()).outcome).toBe('latched');
    const { handle: ref } = referenceHandle('ref');
    d.handles.set('ref', ref);
    await d.until('Ready');
  });

  it("names the load failure when the Proxy's provider is configured but its module failed to load", async () => {
    const { handle } = referenceHandle('other');
    const d = new Driver(newProxy({ provider: 'foo-a' }), [handle]);
    const cause = 'provider "foo-a" (providers[0], type "foo"): module "./missing.mjs" is not found';
    d.loadFailures.set('foo-a', cause);
    await d.step();
    await d.step();
    expect(d.proxy.status?.phase).toBe('Failed');
    expect(d.proxy.status?.message).toBe(`cannot load ${cause}`);
    const cond = getCondition(d.proxy.status?.conditions, 'Provisioned');
    expect(cond?.reason).toBe('ProviderLoadFailed');
    expect(cond?.message).toContain('is not found');
    expect(d.events.some((e) => e.reason === 'ProviderLoadFailed' && e.message.includes('missing.mjs'))).toBe(
      true,
    );
  });

  it('backs off slowly with a QuotaExceeded condition, then clears it', async () => {
    const { handle, backend } = referenceHandle();
    const d = new Driver(newProxy(), [handle]);
    backend.setPoolFull(true, 'alpha');
    await d.step();
    const r = await d.step();
    expect(r.outcome).toBe('quota');
    expect(r.requeue).toEqual({ type: 'backoff', tier: 'quota' });
    const c = getCondition(d.proxy.status!.conditions, 'QuotaExceeded');
    expect(c?.status).toBe('True');
    expect(c?.message).toContain('create');
    expect(d.proxy.status?.phase).not.toBe('Failed');
    backend.setPoolFull(false, 'alpha');
    await d.until('Ready');
    expect(getCondition(d.proxy.status!.conditions, 'QuotaExceeded')?.status).toBe('False');
  });

  it('retries a Transient error with backoff and keeps the phase', async () => {
    const { handle, backend } = referenceHandle();
    const d = new Driver(newProxy(), [handle]);
    await d.step();
    backend.failNext('define', 1, 'UNREACHABLE');
    const r = await d.step();
    expect(r.outcome).toBe('transient');
    expect(r.requeue).toEqual({ type: 'backoff', tier: 'transient' });
    expect(d.proxy.status?.phase).toBe('Provisioning');
    expect(getCondition(d.proxy.status!.conditions, 'Provisioned')?.reason).toBe('TransientError');
    await d.until('Ready');
  });

  it('never leaks the provider credential into status or events', async () => {
    const { handle, backend } = referenceHandle();
    const d = new Driver(newProxy(), [handle]);
    backend.breakHost('alpha', 'auth');
    await d.step();
    await d.step();
    expect(JSON.stringify([d.proxy.status, d.events])).not.toContain(TOKEN);
  });

  it('latches an invalid spec (one that skipped the API server) on its generation', async () => {
    const { handle } = referenceHandle();
    const d = new Driver(newProxy({ port: 70000 }), [handle]);
    const r = await d.step();
    expect(r.outcome).toBe('invalid');
    expect(d.proxy.status?.message).toContain('spec.port: must be at most 65535, got 70000');
    expect((await d.step()).outcome).toBe('latched');
  });
});

describe('reconcileProxy: deletion', () => {
  const deleting = (d: Driver) => {
    d.proxy.metadata.deletionTimestamp = '2026-01-01T00:00:00Z';
  };

  it('deletes the instance, then removes the finalizer', async () => {
    const { handle, backend } = referenceHandle();
    const d = new Driver(newProxy(), [handle]);
    await d.until('Ready');
    deleting(d);
    const r = await d.step();
    expect(r.finalizer).toBe('remove');
    expect(backend.domains()).toHaveLength(0);
    expect(backend.volumes().filter((v) => v.kind !== 'base')).toHaveLength(0);
    expect(d.reasons()).toContain('Deleted');
  });

  it('keeps the finalizer and says why when delete fails', async () => {
    const { handle, backend } = referenceHandle();
    const d = new Driver(newProxy(), [handle]);
    await d.until('Ready');
    deleting(d);
    backend.setUnreachable(true, 'alpha');
    const r = await d.step();
    expect(r.finalizer).toBeUndefined();
    expect(r.requeue).toEqual({ type: 'backoff', tier: 'transient' });
    expect(d.proxy.metadata.finalizers).toContain(FINALIZER);
    expect(d.proxy.status?.phase).toBe('Deleting');
    expect(d.proxy.status?.message).toContain('delete of instance');
    expect(d.reasons()).toContain('DeleteFailed');
    backend.setUnreachable(false, 'alpha');
    expect((await d.step()).finalizer).toBe('remove');
  });

  it('removes the finalizer without deleting when the force annotation is set', async () => {
    const { handle, backend } = referenceHandle();
    const d = new Driver(newProxy(), [handle]);
    await d.until('Ready');
    deleting(d);
    d.proxy.metadata.annotations = { [FORCE_DELETE_ANNOTATION]: 'true' };
    const r = await d.step();
    expect(r.finalizer).toBe('remove');
    expect(backend.domains()).toHaveLength(1);
    expect(d.reasons()).toContain('FinalizerForceRemoved');
  });

  it('blocks with a message naming the annotation when the provider is gone', async () => {
    const { handle } = referenceHandle();
    const d = new Driver(newProxy(), [handle]);
    await d.until('Ready');
    d.handles.clear();
    deleting(d);
    const r = await d.step();
    expect(r.finalizer).toBeUndefined();
    expect(r.outcome).toBe('blocked');
    expect(d.proxy.status?.message).toContain(FORCE_DELETE_ANNOTATION);
  });

  it('does nothing for a deleted Proxy without our finalizer', async () => {
    const { handle } = referenceHandle();
    const d = new Driver(newProxy(), [handle]);
    deleting(d);
    const r = await d.step();
    expect(r).toEqual({ requeue: { type: 'none' }, events: [], outcome: 'ok' });
  });
});

describe('reconcileProxy: external mode', () => {
  it('probes host:port without a provider or finalizer', async () => {
    const d = new Driver(
      newProxy({
        mode: 'External',
        provider: undefined,
        placement: undefined,
        address: '10.1.2.3:8888',
        probe,
      }),
      [],
    );
    const r = await d.step();
    expect(r.finalizer).toBeUndefined();
    expect(d.proxy.status?.phase).toBe('Ready');
    expect(d.proxy.status?.ip).toBe('10.1.2.3');
    expect(d.probes[0]).toMatchObject({ host: '10.1.2.3', port: 8888 });
  });
});

describe('adoption guard', () => {
  it('fails permanently when a foreign instance holds the name', async () => {
    const { handle, backend } = referenceHandle();
    backend.seedDomain({
      host: 'alpha',
      name: instanceName('ns1', 'p1'),
      state: 'running',
      metadata: formatMark({ uid: 'someone-else', createdAt: new Date() }),
    });
    const d = new Driver(newProxy(), [handle]);
    await d.step();
    await d.step();
    expect(d.proxy.status?.phase).toBe('Failed');
    expect(d.proxy.status?.message).toMatch(/uid|owner|foreign/i);
  });
});
