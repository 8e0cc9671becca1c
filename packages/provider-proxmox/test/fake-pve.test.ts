import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildIsoUpload } from '../src/multipart.js';
import { FakePve } from '../src/test/index.js';

// Wire-level checks of the fake against the reference's facts, so provider tests rest on them.
let fake: FakePve;
let token: string;
let agent: Agent;

beforeAll(async () => {
  fake = new FakePve({ nodes: ['pve1', 'pve2'] });
  await fake.start();
  token = fake.addToken();
  agent = new Agent({ connect: { ca: fake.tls.caPem } });
  fake.addTemplate(9000, 'pve1');
});
afterAll(async () => {
  await agent.close();
  await fake.stop();
});

async function call(
  method: string,
  path: string,
  o: { body?: string | Buffer; type?: string; auth?: string | null } = {},
) {
  const headers: Record<string, string> = {};
  if (o.auth !== null) headers.authorization = o.auth ?? `PVEAPIToken=${token}`;
  if (o.type) headers['content-type'] = o.type;
  const res = await request(`${fake.url}/api2/json${path}`, {
    method: method as 'GET',
    headers,
    body: o.body,
    dispatcher: agent,
  });
  const text = await res.body.text();
  return {
    status: res.statusCode,
    reason: res.statusText,
    text,
    json: text ? JSON.parse(text) : undefined,
    headers: res.headers,
  };
}
const form = (o: Record<string, string>) => ({
  body: new URLSearchParams(o).toString(),
  type: 'application/x-www-form-urlencoded',
});
async function finish(node: string, upid: string) {
  for (let i = 0; i < 100; i++) {
    const st = await call('GET', `/nodes/${node}/tasks/${encodeURIComponent(upid)}/status`);
    if (st.json.data.status === 'stopped') return st.json.data.exitstatus as string;
  }
  throw new Error('task never ended');
}

describe('fake PVE wire behaviour', () => {
  it('§1: no token is 401 No ticket, a wrong one 401 Authentication failed!, both with empty bodies', async () => {
    const none = await call('GET', '/version', { auth: null });
    expect([none.status, none.reason, none.text]).toEqual([401, 'No ticket', '']);
    const bad = await call('GET', '/version', { auth: 'PVEAPIToken=root@pam!operator=wrong' });
    expect([bad.status, bad.reason, bad.text]).toEqual([401, 'Authentication failed!', '']);
    expect((await call('GET', '/version', { auth: `PVEAPIToken ${token}` })).status).toBe(200);
  });

  it('§0: unknown routes are 501, bodies on GET are refused, errors close the connection', async () => {
    const r = await call('GET', '/nodes/pve1/foo');
    expect([r.status, r.reason]).toEqual([501, "Method 'GET /nodes/pve1/foo' not implemented"]);
    expect(r.headers.connection).toBe('close');
    const b = await call('GET', '/version', { body: 'x=1', type: 'application/x-www-form-urlencoded' });
    expect(b.status).toBe(501);
  });

  it('§0: the current format has message (+errors), pre-8.3 only the reason phrase', async () => {
    const r = await call('POST', '/nodes/pve1/qemu/9000/clone', form({ newid: '99' }));
    expect(r.status).toBe(400);
    expect(r.json).toEqual({
      data: null,
      errors: { newid: 'invalid format - value does not look like a valid VM ID\n' },
      message: 'Parameter verification failed.\n',
    });
    fake.errorFormat = 'pre-8.3';
    const old = await call('GET', '/nodes/pve1/qemu/777/config');
    expect([old.status, old.reason, old.json]).toEqual([
      500,
      "Configuration file 'nodes/pve1/qemu-server/777.conf' does not exist",
      { data: null },
    ]);
    fake.errorFormat = 'current';
  });

  it('§3: a clone leaves a nameless locked placeholder until its task ends; the UPID names the source', async () => {
    fake.holdTasks('qmclone');
    const r = await call(
      'POST',
      '/nodes/pve1/qemu/9000/clone',
      form({ newid: '100500', name: 'proxy-x', description: 'd' }),
    );
    const upid = r.json.data as string;
    expect(upid).toMatch(/^UPID:pve1:[0-9A-F]{8}:[0-9A-F]{8}:[0-9A-F]{8}:qmclone:9000:root@pam!operator:$/);
    const cfg = await call('GET', '/nodes/pve1/qemu/100500/config');
    expect(cfg.json.data).toMatchObject({ description: ' qmclone temporary file', lock: 'clone' });
    expect(cfg.json.data.name).toBeUndefined();
    const res = (await call('GET', '/cluster/resources?type=vm')).json.data.find(
      (e: { vmid: number }) => e.vmid === 100500,
    );
    expect(res).toMatchObject({ status: 'unknown', lock: 'clone' });
    expect(res.name).toBeUndefined();
    const again = await call('POST', '/nodes/pve1/qemu/9000/clone', form({ newid: '100500' }));
    expect([again.status, again.json.message]).toEqual([
      500,
      'unable to create VM 100500: config file already exists\n',
    ]);
    fake.releaseTasks('qmclone');
    expect(await finish('pve1', upid)).toBe('OK');
    const done = (await call('GET', '/nodes/pve1/qemu/100500/config')).json.data;
    expect(done).toMatchObject({ name: 'proxy-x', description: 'd' });
    expect(done.lock).toBeUndefined();
    expect(done.scsi0).toBe('local-lvm:base-9000-disk-0/vm-100500-disk-0,iothread=1,size=8G');
    expect(done.net0).not.toBe('virtio=BC:24:11:00:00:00,bridge=vmbr0,firewall=1');
  });

  it('§3: a VMID taken on another node passes the sync check and fails the task', async () => {
    fake.addVm(100600, 'pve2', { name: 'other' });
    const r = await call('POST', '/nodes/pve1/qemu/9000/clone', form({ newid: '100600' }));
    expect(await finish('pve1', r.json.data)).toBe(
      "clone failed: close (rename) atomic file '/etc/pve/nodes/pve1/qemu-server/100600.conf' failed: File exists",
    );
  });

  it('§6/§7/§8: start, agent answers, destroy of a running VM, stop no-op, destroy', async () => {
    fake.addVm(100700, 'pve1', { name: 'v', agent: '1' });
    const ag = await call('GET', '/nodes/pve1/qemu/100700/agent/network-get-interfaces');
    expect([ag.status, ag.json.message]).toEqual([500, 'VM 100700 is not running\n']);
    expect(await finish('pve1', (await call('POST', '/nodes/pve1/qemu/100700/status/start')).json.data)).toBe(
      'OK',
    );
    expect(await finish('pve1', (await call('POST', '/nodes/pve1/qemu/100700/status/start')).json.data)).toBe(
      'VM 100700 already running',
    );
    fake.vm(100700).agent = 'down';
    expect((await call('GET', '/nodes/pve1/qemu/100700/agent/network-get-interfaces')).json.message).toBe(
      'QEMU guest agent is not running\n',
    );
    delete fake.vm(100700).config.agent;
    expect((await call('GET', '/nodes/pve1/qemu/100700/agent/network-get-interfaces')).json.message).toBe(
      'No QEMU guest agent configured\n',
    );
    const d = await call('DELETE', '/nodes/pve1/qemu/100700?purge=1');
    expect([d.status, d.json.message]).toEqual([500, 'VM 100700 is running - destroy failed\n']);
    expect(await finish('pve1', (await call('POST', '/nodes/pve1/qemu/100700/status/stop')).json.data)).toBe(
      'OK',
    );
    expect(await finish('pve1', (await call('POST', '/nodes/pve1/qemu/100700/status/stop')).json.data)).toBe(
      'OK',
    );
    expect(await finish('pve1', (await call('DELETE', '/nodes/pve1/qemu/100700?purge=1')).json.data)).toBe(
      'OK',
    );
    expect(fake.vms.has(100700)).toBe(false);
    fake.addVm(100701, 'pve1', { name: 'l', lock: 'clone' });
    expect(await finish('pve1', (await call('DELETE', '/nodes/pve1/qemu/100701')).json.data)).toBe(
      'VM is locked (clone)',
    );
  });

  it('§5: resize is a task; shrinking fails in the task', async () => {
    fake.addVm(100800, 'pve1', { name: 'r', scsi0: 'local-lvm:vm-100800-disk-0,size=10G' });
    const up = await call('PUT', '/nodes/pve1/qemu/100800/resize', form({ disk: 'scsi0', size: '12G' }));
    expect(await finish('pve1', up.json.data)).toBe('OK');
    expect(fake.vm(100800).config.scsi0).toBe('local-lvm:vm-100800-disk-0,size=12G');
    const down = await call('PUT', '/nodes/pve1/qemu/100800/resize', form({ disk: 'scsi0', size: '2G' }));
    expect(await finish('pve1', down.json.data)).toBe('shrinking disks is not supported');
  });

  it('§10: the upload parser wants the file in the part named filename, an .iso name, iso content', async () => {
    const ok = buildIsoUpload('proxy-a-seed.iso', Buffer.from('data'));
    const r = await call('POST', '/nodes/pve1/storage/local/upload', { body: ok.body, type: ok.contentType });
    expect(await finish('pve1', r.json.data)).toBe('OK');
    expect(fake.volumes('pve1', 'local').get('iso/proxy-a-seed.iso')?.size).toBe(4);
    const wrong = {
      ...ok,
      body: Buffer.from(
        ok.body.toString('latin1').replace('name="filename"; filename=', 'name="file"; filename='),
        'latin1',
      ),
    };
    const w = await call('POST', '/nodes/pve1/storage/local/upload', {
      body: wrong.body,
      type: wrong.contentType,
    });
    expect([w.status, w.json.message]).toEqual([
      500,
      "wrong field name 'file' for file upload, expected 'filename'\n",
    ]);
    const ext = buildIsoUpload('seed.txt', Buffer.from('x'));
    const e = await call('POST', '/nodes/pve1/storage/local/upload', {
      body: ext.body,
      type: ext.contentType,
    });
    expect([e.status, e.json.errors]).toEqual([400, { filename: 'wrong file extension' }]);
    const lvm = await call('POST', '/nodes/pve1/storage/local-lvm/upload', {
      body: ok.body,
      type: ok.contentType,
    });
    expect([lvm.status, lvm.json.message]).toEqual([500, "can't upload to storage type 'lvmthin'\n"]);
  });

  it('§10: deleting a missing volume still ends OK; a storage mismatch is 400; unknown storage status is 400', async () => {
    const d = await call(
      'DELETE',
      `/nodes/pve1/storage/local/content/${encodeURIComponent('iso/nope-seed.iso')}`,
    );
    expect(await finish('pve1', d.json.data)).toBe('OK');
    const m = await call(
      'DELETE',
      `/nodes/pve1/storage/local/content/${encodeURIComponent('other:iso/x.iso')}`,
    );
    expect([m.status, m.json.errors]).toEqual([400, { volume: 'storage ID mismatch (other != local)' }]);
    const s = await call('GET', '/nodes/pve1/storage/nope/status');
    expect([s.status, s.json.errors]).toEqual([400, { storage: 'No such storage.' }]);
  });

  it('§9/§11: bad and unknown UPIDs are 400; an offline node answers 595 with no body', async () => {
    expect((await call('GET', '/nodes/pve1/tasks/garbage/status')).json.errors).toEqual({
      upid: 'unable to parse worker upid',
    });
    const unknown = await call(
      'GET',
      `/nodes/pve1/tasks/${encodeURIComponent('UPID:pve1:00000001:00000002:00000003:qmstart:1:root@pam:')}/status`,
    );
    expect([unknown.status, unknown.reason]).toEqual([400, 'no such task']);
    fake.setNodeOnline('pve2', false);
    const off = await call('GET', '/nodes/pve2/status');
    expect([off.status, off.reason, off.text]).toEqual([595, 'No route to host', '']);
    fake.setNodeOnline('pve2', true);
  });

  it('node tasks (pve-manager Tasks.pm): active ones RUNNING, finished ones with status and endtime; a token without Sys.Audit sees its own', async () => {
    fake.holdTasks('qmclone');
    const clone = await call('POST', '/nodes/pve1/qemu/9000/clone', form({ newid: '4321', name: 'tasks' }));
    const upid = clone.json.data as string;
    const active = await call('GET', '/nodes/pve1/tasks?source=active&typefilter=qmclone');
    expect(active.json.data).toEqual([
      expect.objectContaining({ upid, type: 'qmclone', id: '9000', status: 'RUNNING', user: 'root@pam' }),
    ]);
    expect(active.json.data[0].endtime).toBeUndefined();
    expect((await call('GET', '/nodes/pve2/tasks?source=active')).json.data).toEqual([]);
    // Another token without Sys.Audit on the node sees none of it.
    const other = fake.addToken('audit@pve!limited', ['VM.Audit']);
    const hidden = await call('GET', '/nodes/pve1/tasks?source=all', { auth: `PVEAPIToken=${other}` });
    expect(hidden.json.data).toEqual([]);
    fake.releaseTasks('qmclone');
    expect(await finish('pve1', upid)).toBe('OK');
    const archive = await call('GET', '/nodes/pve1/tasks?typefilter=qmclone&vmid=9000');
    // Newest first; earlier clones of the same template may share its start second.
    const listed = archive.json.data as { upid: string; starttime: number }[];
    const starts = listed.map((t) => t.starttime);
    expect(starts.length > 0 && starts.every(Number.isInteger)).toBe(true);
    expect(starts).toEqual([...starts].sort((a, b) => b - a));
    expect(listed.find((t) => t.upid === upid)).toMatchObject({ status: 'OK', endtime: expect.any(Number) });
    expect(listed.find((t) => t.upid === upid)?.starttime).toBe(starts[0]);
    const bad = await call('GET', '/nodes/pve1/tasks?source=nope');
    expect(bad.status).toBe(400);
    await call('DELETE', '/nodes/pve1/qemu/4321');
  });

  it('§13: tags are normalised; memory is a string on PVE >= 8.1', async () => {
    fake.addVm(100900, 'pve1', { name: 't' });
    await call(
      'PUT',
      '/nodes/pve1/qemu/100900/config',
      form({ tags: 'Zeta,proxy_operator;zeta', memory: '1024' }),
    );
    const cfg = (await call('GET', '/nodes/pve1/qemu/100900/config')).json.data;
    expect([cfg.tags, cfg.memory]).toEqual(['proxy_operator;zeta', '1024']);
  });
});
