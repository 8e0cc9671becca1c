import { writeFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type FakeSetup, startFakeSetup } from '../src/test/index.js';

let s: FakeSetup;
afterEach(async () => {
  await s.close();
});

describe('check on PVE 9', () => {
  beforeEach(async () => {
    s = await startFakeSetup({ nodes: ['pve1', 'pve2'] });
  });

  it('reports every node ready with its details, in config order', async () => {
    const r = await s.provider().check();
    expect(r.map((x) => [x.target, x.ready, x.reason])).toEqual([
      ['pve1', true, 'Ready'],
      ['pve2', true, 'Ready'],
    ]);
    expect(r[0]!.details).toMatchObject({
      isoStorage: 'local',
      tokenID: 'root@pam!operator',
      pveVersion: '9.2.20',
      templates: 'debian=9000',
      guestAgentPermission: 'VM.GuestAgent.Audit',
    });
    expect(r[0]!.details.kernel).toMatch(/^Linux/);
    expect(Number(r[0]!.details.isoStorageAvailGiB)).toBeGreaterThan(1);
    expect(r[0]!.address).toBe(new URL(s.fake.url).host);
  });

  it('a token without VM.GuestAgent.Audit is reported', async () => {
    s.fake.setPrivileges('root@pam!operator', ['VM.Audit', 'Sys.Audit', 'Datastore.Audit']);
    const r = await s.provider().check();
    expect(r[0]).toMatchObject({
      ready: false,
      reason: 'GuestAgentPermissionMissing',
      details: { guestAgentPermission: 'missing' },
    });
    expect(r[0]!.message).toContain('VM.GuestAgent.Audit');
  });

  it('a missing storage, an inactive one, one without iso content', async () => {
    expect((await s.provider({ isoStorage: 'nope' }).check())[0]!.reason).toBe('StorageNotFound');
    expect((await s.provider({ isoStorage: 'local-lvm' }).check())[0]!.reason).toBe('StorageNotFound');
    s.fake.storages[0]!.active = false;
    expect((await s.provider().check())[0]!.reason).toBe('StorageNotFound');
  });

  it('a catalogue VMID that is no template', async () => {
    s.fake.addVm(9300, 'pve2', { name: 'plain' });
    const r = await s.provider({ templates: { debian: 9000, plain: 9300 } }).check();
    expect(r.map((x) => [x.ready, x.reason])).toEqual([
      [true, 'Ready'],
      [false, 'TemplateNotFound'],
    ]);
    expect(r[0]!.details.templates).toBe('debian=9000,plain=9300@pve2');
    const gone = await s.provider({ templates: { debian: 9000, gone: 9400 } }).check();
    expect(gone.map((x) => x.reason)).toEqual(['TemplateNotFound', 'TemplateNotFound']);
  });

  it('401, 595, a missing token file, a foreign CA and a deadline', async () => {
    s.fake.revokeToken('root@pam!operator');
    expect((await s.provider().check())[0]!.reason).toBe('Unauthorized');
    writeFileSync(s.tokenFile, s.fake.addToken());
    s.fake.setNodeOnline('pve2', false);
    const r = await s.provider().check();
    expect(r.map((x) => x.reason)).toEqual(['Ready', 'Unreachable']);
    s.fake.setNodeOnline('pve2', true);
    expect((await s.provider({ tokenFile: `${s.dir}/none` }).check())[0]!.reason).toBe(
      'CredentialsUnavailable',
    );
    expect((await s.provider({ caFile: undefined }).check())[0]!.reason).toBe('CertificateInvalid');
    s.fake.inject({ path: '/version', status: 200, hang: true });
    const t = await s.provider({}, { budgets: { checkMs: 100 } }).check();
    expect(t.map((x) => x.reason)).toEqual(['Timeout', 'Timeout']);
    s.fake.clearFaults();
  });
});

describe('check on PVE 8', () => {
  it('asks for VM.Monitor instead', async () => {
    s = await startFakeSetup({ version: '8.2.4' });
    const r = await s.provider().check();
    expect(r[0]).toMatchObject({
      ready: true,
      details: { guestAgentPermission: 'VM.Monitor', pveVersion: '8.2.4' },
    });
  });
});
