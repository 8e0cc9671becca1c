import { afterEach, describe, expect, it } from 'vitest';
import { computeErrors } from '../src/test/fake-errors.js';
import { rejection, request, type Setup, setup } from './helpers.js';

let s: Setup;
afterEach(async () => {
  await s?.close();
});

describe('listByTag', () => {
  it('pages through the aggregated list with the managed filter and partial success', async () => {
    s = await setup({}, { listPageSize: 2 });
    const reqs = [
      request(),
      request({ placement: { zone: 'us-central1-b', machineType: 'e2-small', image: 'global/images/x' } }),
      request({ placement: { zone: 'europe-west1-b', machineType: 'e2-small', image: 'global/images/x' } }),
      request(),
      request(),
    ];
    const ids = [];
    for (const r of reqs) ids.push(await s.provider.create(r));
    s.fake.putInstance('us-central1-a', { name: 'proxy-cccccccccccccccc', labels: { team: 'other' } });
    s.fake.advance(5_000);

    const listed = await s.provider.listByTag();
    expect(listed.map((i) => i.id).sort()).toEqual([...ids].sort());
    for (const i of listed) {
      expect(i.state).toBe('Running');
      expect(i.uid).not.toBe('');
      expect(i.createdAt).toBeInstanceOf(Date);
    }
    const calls = s.fake.calls.filter((c) => c.step === 'instances.aggregatedList');
    expect(calls).toHaveLength(3);
    expect(calls[0]!.query).toMatchObject({
      filter: 'labels.proxy-operator-managed = "true"',
      maxResults: '2',
      returnPartialSuccess: 'true',
    });
    expect(calls[1]!.query.pageToken).toBeTruthy();
  });

  it('omits an unreachable zone and logs it instead of failing', async () => {
    s = await setup();
    const a = await s.provider.create(request());
    await s.provider.create(
      request({ placement: { zone: 'europe-west1-b', machineType: 'e2-small', image: 'global/images/x' } }),
    );
    s.fake.setUnreachable(true, 'europe-west1-b');
    const listed = await s.provider.listByTag();
    expect(listed.map((i) => i.id)).toEqual([a]);
    const line = s.lines.find((l) => l.msg.startsWith('list: zone unreachable'));
    expect(line).toMatchObject({
      level: 1,
      zone: 'europe-west1-b',
      unreachable: 'zones/europe-west1-b',
      provider: 'gcp-test',
    });
  });

  it('classifies a failing list', async () => {
    s = await setup();
    s.fake.failNext('instances.aggregatedList', 1, { kind: 'error', error: computeErrors.rateLimited() });
    expect(await rejection(s.provider.listByTag())).toMatchObject({
      kind: 'QuotaExceeded',
      operation: 'listByTag',
    });
  });
});

describe('errors over the wire', () => {
  it.each([
    [
      'quota 403',
      { kind: 'error', error: computeErrors.quotaExceeded('CPUS', 'us-central1', 8) },
      'QuotaExceeded',
    ],
    ['429', { kind: 'error', error: computeErrors.rateLimited() }, 'QuotaExceeded'],
    [
      'permission 403',
      { kind: 'error', error: computeErrors.forbidden('compute.instances.create', 'x') },
      'Permanent',
    ],
    ['401', { kind: 'error', error: computeErrors.unauthenticated() }, 'Permanent'],
    ['503', { kind: 'error', error: computeErrors.backendError() }, 'Transient'],
    ['connection reset', { kind: 'reset' }, 'Transient'],
  ] as const)('create with %s -> %s', async (_name, fault, kind) => {
    s = await setup();
    s.fake.failNext('instances.insert', 1, fault);
    const e = await rejection(s.provider.create(request()));
    expect(e).toMatchObject({ kind, provider: 'gcp-test', operation: 'create' });
  });

  it('aborts promptly while a call is held', async () => {
    s = await setup();
    const gate = s.fake.block('instances.get');
    const ac = new AbortController();
    const p = s.provider.get('zones/us-central1-a/instances/proxy-0000000000000001', { signal: ac.signal });
    await gate.reached;
    ac.abort();
    const e = await rejection(p);
    expect(e).toMatchObject({ kind: 'Transient', code: 'ABORTED' });
    gate.release();
  });

  it('rejects an already aborted call without any request', async () => {
    s = await setup();
    const e = await rejection(s.provider.listByTag({ signal: AbortSignal.abort() }));
    expect(e).toMatchObject({ kind: 'Transient', code: 'ABORTED' });
    expect(s.fake.calls).toEqual([]);
  });
});
