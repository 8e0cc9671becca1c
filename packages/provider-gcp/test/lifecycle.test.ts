import { afterEach, describe, expect, it } from 'vitest';
import { computeErrors } from '../src/test/fake-errors.js';
import { IMAGE, rejection, request, type Setup, setup, ZONE } from './helpers.js';

let s: Setup;
afterEach(async () => {
  await s?.close();
});

describe('create and get over the fake Compute API', () => {
  it('creates the instance, then reports PROVISIONING -> STAGING -> RUNNING as the clock moves', async () => {
    s = await setup();
    const req = request();
    const id = await s.provider.create(req);
    expect(id).toBe(`zones/${ZONE}/instances/${req.name}`);

    const stored = s.fake.instance(ZONE, req.name)!;
    expect(stored.labels).toMatchObject({
      'proxy-operator-managed': 'true',
      'proxy-operator-uid': req.uid,
    });
    expect(stored.metadata?.items).toEqual([{ key: 'user-data', value: req.cloudInit }]);
    const insert = s.fake.calls.find((c) => c.step === 'instances.insert')!;
    expect(insert.query.requestId).toMatch(/^[0-9a-f-]{36}$/);

    expect(await s.provider.get(id)).toMatchObject({ id, uid: req.uid, state: 'Provisioning' });
    s.fake.advance(1_500);
    expect((await s.provider.get(id)).state).toBe('Provisioning');
    s.fake.advance(2_000);
    const running = await s.provider.get(id);
    expect(running.state).toBe('Running');
    expect(running.ip).toMatch(/^203\.0\.113\.\d+$/);
    expect(running.createdAt).toBeInstanceOf(Date);
  });

  it('is idempotent: a repeated create reuses the request ID and leaves one instance', async () => {
    s = await setup();
    const req = request();
    const a = await s.provider.create(req);
    const b = await s.provider.create(req);
    expect(b).toBe(a);
    const inserts = s.fake.calls.filter((c) => c.step === 'instances.insert');
    expect(inserts).toHaveLength(2);
    expect(inserts[1]!.query.requestId).toBe(inserts[0]!.query.requestId);
    expect(s.fake.allInstances()).toHaveLength(1);
    expect(s.fake.operations().filter((o) => o.operationType === 'insert')).toHaveLength(1);
  });

  it('treats 409 as success for our own instance and refuses foreign or unmarked ones', async () => {
    s = await setup();
    const req = request();
    s.fake.putInstance(ZONE, {
      name: req.name,
      labels: { 'proxy-operator-managed': 'true', 'proxy-operator-uid': req.uid },
    });
    expect(await s.provider.create(req)).toBe(`zones/${ZONE}/instances/${req.name}`);

    const foreign = request();
    s.fake.putInstance(ZONE, {
      name: foreign.name,
      labels: { 'proxy-operator-managed': 'true', 'proxy-operator-uid': 'someone-else' },
    });
    const e1 = await rejection(s.provider.create(foreign));
    expect(e1).toMatchObject({ kind: 'Permanent', code: 'FOREIGN_INSTANCE', provider: 'gcp-test' });

    const unmarked = request();
    s.fake.putInstance(ZONE, { name: unmarked.name, labels: {} });
    const e2 = await rejection(s.provider.create(unmarked));
    expect(e2).toMatchObject({ kind: 'Permanent', code: 'UNMARKED_INSTANCE' });
    expect(s.fake.instance(ZONE, unmarked.name)?.labels).toEqual({});
  });

  it('validates zone, machine type and image before any call', async () => {
    s = await setup();
    for (const [field, placement] of [
      ['zone', { zone: 'nowhere', machineType: 'e2-small', image: IMAGE }],
      ['machineType', { zone: ZONE, machineType: '', image: IMAGE }],
      ['image', { zone: ZONE, machineType: 'e2-small', image: 'ubuntu' }],
    ] as const) {
      const e = await rejection(s.provider.create(request({ placement })));
      expect(e).toMatchObject({ kind: 'Permanent', code: 'INVALID_PLACEMENT' });
      expect(e.message).toContain(`placement.${field}`);
    }
    expect(s.fake.calls).toEqual([]);
  });

  it('maps a machine type Compute does not know to Permanent naming the field', async () => {
    s = await setup();
    const e = await rejection(
      s.provider.create(request({ placement: { zone: ZONE, machineType: 'no-such-type', image: IMAGE } })),
    );
    expect(e).toMatchObject({ kind: 'Permanent', code: 'INVALID_PLACEMENT' });
    expect(e.message).toContain('placement.machineType');
  });

  it('reports the NAT IP in external mode and the VPC address in internal mode', async () => {
    s = await setup({ ipMode: 'internal' });
    const req = request();
    const id = await s.provider.create(req);
    expect(s.fake.instance(ZONE, req.name)!.networkInterfaces![0]!.accessConfigs).toEqual([]);
    s.fake.advance(5_000);
    const got = await s.provider.get(id);
    expect(got.state).toBe('Running');
    expect(got.ip).toMatch(/^10\.128\.0\.\d+$/);
  });

  it('reports NotFound for an absent or unmarked instance', async () => {
    s = await setup();
    const e = await rejection(s.provider.get(`zones/${ZONE}/instances/proxy-ffffffffffffffff`));
    expect(e).toMatchObject({ kind: 'NotFound', provider: 'gcp-test', operation: 'get' });
    s.fake.putInstance(ZONE, { name: 'proxy-eeeeeeeeeeeeeeee', labels: {} });
    const e2 = await rejection(s.provider.get(`zones/${ZONE}/instances/proxy-eeeeeeeeeeeeeeee`));
    expect(e2).toMatchObject({ kind: 'NotFound' });
  });

  it('never logs the user-data, even at V2', async () => {
    s = await setup();
    const req = request();
    await s.provider.create(req);
    const text = JSON.stringify(s.lines);
    expect(text).toContain('insert request');
    expect(text).not.toContain('secret-sentinel-7d1e');
  });
});

describe('asynchronous insert failures', () => {
  it('surfaces a quota failure on Get instead of NotFound', async () => {
    s = await setup();
    s.fake.failNextInsertAsync({
      code: 'QUOTA_EXCEEDED',
      message: "Quota 'IN_USE_ADDRESSES' exceeded.  Limit: 8.0 in region us-central1.",
      httpStatus: 403,
    });
    const id = await s.provider.create(request());
    expect((await s.provider.get(id)).state).toBe('Provisioning');
    s.fake.advance(2_500);
    const e = await rejection(s.provider.get(id));
    expect(e).toMatchObject({ kind: 'QuotaExceeded', provider: 'gcp-test', operation: 'get' });
    expect(e.message).toContain("Quota 'IN_USE_ADDRESSES' exceeded");
    // Found through the operation Create kept: one zoneOperations.get, no listing.
    expect(s.fake.calls.filter((c) => c.step === 'zoneOperations.list')).toHaveLength(0);
  });

  it('surfaces a bad image as Permanent with the operation message, also from a fresh process', async () => {
    s = await setup();
    s.fake.failNextInsertAsync({
      code: 'RESOURCE_NOT_FOUND',
      message: "The resource 'projects/ubuntu-os-cloud/global/images/family/ubuntu-9999-lts' was not found",
      httpStatus: 404,
    });
    const id = await s.provider.create(request());
    s.fake.advance(2_500);
    const { createGcpProvider } = await import('../src/provider.js');
    const { noAuth } = await import('../src/auth.js');
    const fresh = createGcpProvider(
      { project: s.fake.project },
      { name: 'other', endpoint: s.fake.url, auth: noAuth },
    );
    const e = await rejection(fresh.get(id));
    expect(e).toMatchObject({ kind: 'Permanent', code: 'OPERATION_FAILED', provider: 'other' });
    expect(e.message).toContain('ubuntu-9999-lts');
    const list = s.fake.calls.find((c) => c.step === 'zoneOperations.list')!;
    expect(list.query.filter).toContain('operationType = "insert"');
  });

  it('lets Create try again under a new request ID after the failure', async () => {
    s = await setup();
    s.fake.failNextInsertAsync({
      code: 'ZONE_RESOURCE_POOL_EXHAUSTED',
      message: 'not enough resources',
      httpStatus: 503,
    });
    const req = request();
    const id = await s.provider.create(req);
    s.fake.advance(2_500);
    expect(await rejection(s.provider.get(id))).toMatchObject({ kind: 'QuotaExceeded' });
    expect(await s.provider.create(req)).toBe(id);
    const ids = s.fake.calls.filter((c) => c.step === 'instances.insert').map((c) => c.query.requestId);
    expect(ids).toHaveLength(3);
    expect(ids[1]).toBe(ids[0]);
    expect(ids[2]).not.toBe(ids[0]);
    expect(s.fake.instance(ZONE, req.name)).toBeDefined();
    expect((await s.provider.get(id)).state).toBe('Provisioning');
  });
});

describe('insert operation lookup failures', () => {
  it('a lookup Compute refuses (no permission) still reports NotFound; a transient one is Transient', async () => {
    s = await setup();
    const id = `zones/${ZONE}/instances/proxy-ffffffffffffffff`;
    s.fake.failNext('zoneOperations.list', 1, {
      kind: 'error',
      error: computeErrors.forbidden('compute.zoneOperations.list', `projects/${s.fake.project}`),
    });
    expect(await rejection(s.provider.get(id))).toMatchObject({ kind: 'NotFound' });
    expect(s.lines.some((l) => l.msg === 'insert operation lookup failed, reporting NotFound')).toBe(true);
    s.fake.failNext('zoneOperations.list', 1, { kind: 'error', error: computeErrors.backendError() });
    expect(await rejection(s.provider.get(id))).toMatchObject({ kind: 'Transient' });
  });
});

describe('re-create after an out-of-band delete', () => {
  it('submits anew when Compute replays a finished insert whose instance is gone', async () => {
    s = await setup();
    const req = request();
    const id = await s.provider.create(req);
    s.fake.advance(5_000);
    expect((await s.provider.get(id)).state).toBe('Running');
    s.fake.removeInstance(ZONE, req.name);
    expect(await rejection(s.provider.get(id))).toMatchObject({ kind: 'NotFound' });
    expect(await s.provider.create(req)).toBe(id);
    expect(s.fake.instance(ZONE, req.name)).toBeDefined();
    const ids = s.fake.calls.filter((c) => c.step === 'instances.insert').map((c) => c.query.requestId);
    expect(ids).toHaveLength(3);
    expect(ids[1]).toBe(ids[0]);
    expect(ids[2]).not.toBe(ids[0]);
  });
});

describe('delete', () => {
  it('is success when absent and does not submit a delete that is already running', async () => {
    s = await setup();
    await s.provider.delete(`zones/${ZONE}/instances/proxy-ffffffffffffffff`);
    const id = await s.provider.create(request());
    s.fake.advance(5_000);
    await s.provider.delete(id);
    expect((await s.provider.get(id)).state).toBe('Stopped');
    await s.provider.delete(id);
    await s.provider.delete(id);
    expect(s.fake.calls.filter((c) => c.step === 'instances.delete')).toHaveLength(1);
    s.fake.advance(2_500);
    await s.provider.delete(id);
    expect(await rejection(s.provider.get(id))).toMatchObject({ kind: 'NotFound' });
    expect(s.fake.disks()).toEqual([]);
  });

  it('a second process deleting the same instance reuses the request ID: one delete operation', async () => {
    s = await setup();
    const id = await s.provider.create(request());
    s.fake.advance(5_000);
    await s.provider.delete(id);
    const { createGcpProvider } = await import('../src/provider.js');
    const { noAuth } = await import('../src/auth.js');
    const other = createGcpProvider({ project: s.fake.project }, { endpoint: s.fake.url, auth: noAuth });
    await other.delete(id);
    const deletes = s.fake.calls.filter((c) => c.step === 'instances.delete');
    expect(deletes).toHaveLength(2);
    expect(deletes[1]!.query.requestId).toBe(deletes[0]!.query.requestId);
    expect(s.fake.operations().filter((o) => o.operationType === 'delete')).toHaveLength(1);
  });

  it('an expired delete operation is resubmitted under the same request ID, never NotFound', async () => {
    s = await setup();
    const id = await s.provider.create(request());
    s.fake.advance(5_000);
    await s.provider.delete(id);
    s.fake.failNext('zoneOperations.get', 1, {
      kind: 'error',
      error: computeErrors.notFound(`projects/${s.fake.project}/zones/${ZONE}/operations/x`),
    });
    await s.provider.delete(id);
    const deletes = s.fake.calls.filter((c) => c.step === 'instances.delete');
    expect(deletes).toHaveLength(2);
    expect(deletes[1]!.query.requestId).toBe(deletes[0]!.query.requestId);
    expect(s.fake.operations().filter((o) => o.operationType === 'delete')).toHaveLength(1);
  });

  it('a 404 on the delete call is success; a 404 on the project-wide list is Permanent', async () => {
    s = await setup();
    const id = await s.provider.create(request());
    s.fake.advance(5_000);
    s.fake.failNext('instances.delete', 1, {
      kind: 'error',
      error: computeErrors.notFound(`projects/${s.fake.project}/zones/${ZONE}/operations/x`),
    });
    // Compute's 404 on the delete itself means the instance went away meanwhile: success.
    await s.provider.delete(id);
    s.fake.failNext('instances.aggregatedList', 1, {
      kind: 'error',
      error: computeErrors.notFound(`projects/${s.fake.project}`),
    });
    expect(await rejection(s.provider.listByTag())).toMatchObject({
      kind: 'Permanent',
      code: 'INVALID_CONFIG',
    });
  });

  it('leaves an unmarked instance alone', async () => {
    s = await setup();
    s.fake.putInstance(ZONE, { name: 'proxy-dddddddddddddddd', labels: {} });
    await s.provider.delete(`zones/${ZONE}/instances/proxy-dddddddddddddddd`);
    expect(s.fake.calls.filter((c) => c.step === 'instances.delete')).toHaveLength(0);
  });
});
