import { describe, expect, it } from 'vitest';
import { ReferenceBackend } from './backend.js';
import { ReferenceBackendError } from './backend-error.js';

const auth = { token: 't' };
const code = (p: Promise<unknown>) =>
  p.then(
    () => 'ok',
    (e: unknown) => (ReferenceBackendError.isInstance(e) ? e.code : String(e)),
  );

function backend() {
  return new ReferenceBackend({
    hosts: [
      { name: 'h1', token: 't', poolGiB: 10 },
      { name: 'h2', token: 't' },
    ],
  });
}

describe('ReferenceBackend', () => {
  it('boots a started domain through nostate, then runs it with an address', async () => {
    const b = backend();
    const base = await b.ensureImage('h1', 'img', { url: 'https://images.example/img', sizeGiB: 1 }, auth);
    await b.createVolume('h1', { name: 'v', owner: 'd', sizeGiB: 1, backing: base }, auth);
    await b.defineDomain('h1', { name: 'd', vcpus: 1, memoryMiB: 1, disks: ['v'], metadata: '' }, auth);
    await b.startDomain('h1', 'd', auth);
    expect(await b.domainState('h1', 'd', auth)).toBe('nostate');
    expect(await b.domainState('h1', 'd', auth)).toBe('running');
    expect(await b.domainAddress('h1', 'd', auth)).toMatch(/^192\.0\.2\.\d+$/);
  });

  it('keeps the free space as volumes come, are rewritten and go', async () => {
    const b = backend();
    const GiB = 1024 ** 3;
    const free = async () => (await b.poolInfo('h1', 'default', auth)).availableBytes;
    expect(await free()).toBe(10 * GiB);
    const base = await b.ensureImage('h1', 'img', { url: 'https://images.example/img', sizeGiB: 1 }, auth);
    expect(await free()).toBe(9 * GiB);
    await b.createVolume('h1', { name: 'a', owner: 'd', sizeGiB: 4, backing: base }, auth);
    await b.writeSeed('h1', { name: 's', owner: 'd', content: new Uint8Array(1024) }, auth);
    await b.writeSeed('h1', { name: 's', owner: 'd', content: new Uint8Array(2048) }, auth);
    expect(await free()).toBe(5 * GiB - 2048);
    await b.deleteVolume('h1', 'a', auth);
    expect(await free()).toBe(9 * GiB - 2048);
    expect(await code(b.createVolume('h1', { name: 'b', owner: 'd', sizeGiB: 9, backing: base }, auth))).toBe(
      'NO_SPACE',
    );
    expect(
      await code(b.createVolume('h1', { name: 'c', owner: 'd', sizeGiB: 1, backing: 'gone' }, auth)),
    ).toBe('NO_VOLUME');
  });

  it('answers with native codes: missing, existing, out of space, wrong token', async () => {
    const b = backend();
    expect(await code(b.lookupDomain('h1', 'nope', auth))).toBe('NO_DOMAIN');
    expect(await code(b.deleteVolume('h1', 'nope', auth))).toBe('NO_VOLUME');
    expect(
      await code(
        b.createVolume(
          'h1',
          {
            name: 'big',
            owner: 'd',
            sizeGiB: 11,
            backing: await b.ensureImage(
              'h1',
              'img',
              { url: 'https://images.example/img', sizeGiB: 1 },
              auth,
            ),
          },
          auth,
        ),
      ),
    ).toBe('NO_SPACE');
    expect(await code(b.probe('h1', { token: 'wrong' }))).toBe('AUTH');
    expect(await code(b.poolInfo('h1', 'other', auth))).toBe('NO_POOL');
  });

  it('injects queued faults per step, then answers normally', async () => {
    const b = backend();
    b.failNext('probe', 2, 'BUSY');
    expect(await code(b.probe('h1', auth))).toBe('BUSY');
    expect(await code(b.probe('h2', auth))).toBe('BUSY');
    expect(await code(b.probe('h1', auth))).toBe('ok');
  });

  it('makes one host unreachable, busy or broken, and reset restores it', async () => {
    const b = backend();
    b.setUnreachable(true, 'h2');
    expect(await code(b.listDomains('h2', auth))).toBe('UNREACHABLE');
    expect(await code(b.listDomains('h1', auth))).toBe('ok');
    b.setBusy(true);
    expect(await code(b.listDomains('h1', auth))).toBe('BUSY');
    b.breakHost('h1', 'pool-inactive');
    b.reset();
    expect(await code(b.listDomains('h2', auth))).toBe('ok');
    expect((await b.poolInfo('h1', 'default', auth)).active).toBe(true);
  });

  it('holds a blocked step, counts it in flight and lets an aborted caller go', async () => {
    const b = backend();
    const gate = b.block('probe');
    const ac = new AbortController();
    const pending = b.probe('h1', { ...auth, signal: ac.signal });
    const other = b.probe('h2', auth);
    await gate.reached;
    expect(b.inFlight('probe')).toBe(2);
    ac.abort();
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
    gate.release();
    await other;
    expect(b.inFlight()).toBe(0);
    expect(b.calls().map((c) => c.step)).toEqual(['probe', 'probe']);
  });
});
