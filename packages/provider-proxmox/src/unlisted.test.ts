import { randomUUID } from 'node:crypto';
import { type CreateRequest, ErrorCode, ErrorKind, type ProviderError } from '@egress-proxies/contract';
import { afterEach, describe, expect, it } from 'vitest';
import { ALL_PRIVS } from './test/fake-pve.js';
import { type FakeSetup, startFakeSetup } from './test/setup.js';

const TOKEN = 'root@pam!operator';
const noAudit = ALL_PRIVS.filter((p) => p !== 'VM.Audit');
let setup: FakeSetup | undefined;
afterEach(async () => {
  await setup?.close();
  setup = undefined;
});

const request = (name: string): CreateRequest => ({
  name,
  namespace: 'ns',
  proxyName: name,
  uid: randomUUID(),
  port: 3128,
  placement: { machineType: 'small', image: 'debian', zone: 'pve1' },
  installation: 'inst',
});

const rejection = (p: Promise<unknown>) =>
  p.then(
    () => {
      throw new Error('expected a rejection');
    },
    (e: unknown) => e as ProviderError,
  );

describe('proxmox: a VM left out of /cluster/resources', () => {
  it('get of a running VM the token can no longer audit is Permanent FORBIDDEN naming VM.Audit, not NotFound', async () => {
    setup = await startFakeSetup();
    const p = setup.provider();
    const id = await p.create(request('proxy-audit'));
    expect((await p.get(id)).id).toBe(id);
    setup.fake.setPrivileges(TOKEN, noAudit);
    const err = await rejection(p.get(id));
    expect([err.kind, err.code]).toEqual([ErrorKind.Permanent, ErrorCode.Forbidden]);
    expect(err.message).toMatch(/lacks VM\.Audit on \/vms\/\d+/);
    setup.fake.setPrivileges(TOKEN, ALL_PRIVS);
    expect((await p.get(id)).id).toBe(id);
  });

  it('create without VM.Audit says FORBIDDEN naming the privilege, not TEMPLATE_NOT_FOUND', async () => {
    setup = await startFakeSetup();
    setup.fake.setPrivileges(TOKEN, noAudit);
    const err = await rejection(setup.provider().create(request('proxy-noaudit')));
    expect([err.kind, err.code]).toEqual([ErrorKind.Permanent, ErrorCode.Forbidden]);
    expect(err.message).toContain('VM.Audit');
    expect(err.message).toContain('template debian (VMID 9000)');
  });

  it('is NotFound only when the direct read says it does not exist', async () => {
    setup = await startFakeSetup();
    const p = setup.provider();
    const id = await p.create(request('proxy-gone'));
    await p.delete(id);
    const err = await rejection(p.get(id));
    expect(err.kind).toBe(ErrorKind.NotFound);
  });
});
