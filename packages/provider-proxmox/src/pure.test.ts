import { describe, expect, it } from 'vitest';
import { formatProviderId, parseProviderId } from './id.js';
import { KeyedLimiter } from './limiter.js';
import { formatDescription, hasTag, parseDescription } from './marks.js';
import { buildIsoUpload } from './multipart.js';
import { seedFileName, seedOwner } from './seed.js';
import { firstIPv4, mapState } from './state.js';
import { parseMultipart } from './test/multipart-parse.js';
import { bootDisk, diskSizeGiB, hasCloudInitDrive, rewriteNet0 } from './vm-config.js';
import { fnv1a32, vmidFor } from './vmid.js';

describe('id', () => {
  it('round-trips vms/<vmid>/<name>', () => {
    expect(parseProviderId(formatProviderId(100123, 'proxy-ab'))).toEqual({ vmid: 100123, name: 'proxy-ab' });
  });
  it.each([
    '',
    'vms/100',
    'vm/100/x',
    'vms/099/x',
    'vms/0100/x',
    'vms/1000000000/x',
    'vms/100/',
    'vms/100/a/b',
    'hosts/h/domains/x',
  ])('rejects %j as Permanent INVALID_ID', (id) => {
    expect(() => parseProviderId(id)).toThrow(
      expect.objectContaining({ kind: 'Permanent', code: 'INVALID_ID' }),
    );
  });
});

describe('marks', () => {
  it('writes the Go operator key=value lines and reads them back', () => {
    const d = formatDescription({
      uid: 'u-1',
      createdAt: new Date('2026-01-02T03:04:05Z'),
      installation: 'i-1',
    });
    expect(d.split('\n')).toEqual([
      'proxy-operator-managed=true',
      'proxy-operator-uid=u-1',
      'proxy-operator-created-at=2026-01-02T03:04:05.000Z',
      'proxy-operator-installation=i-1',
    ]);
    expect(parseDescription(d)).toEqual({
      managed: true,
      uid: 'u-1',
      createdAt: new Date('2026-01-02T03:04:05Z'),
      installation: 'i-1',
    });
  });
  it('a bad date gives no createdAt; no managed line is unmanaged; trimmed lines are read', () => {
    expect(parseDescription('proxy-operator-managed=true\nproxy-operator-created-at=yesterday')).toEqual({
      managed: true,
      uid: '',
    });
    expect(parseDescription('proxy-operator-uid=x').managed).toBe(false);
    expect(parseDescription(' proxy-operator-managed=true \r\n').managed).toBe(true);
    expect(parseDescription(undefined).managed).toBe(false);
  });
  it('hasTag reads PVE separators, case-insensitively', () => {
    expect(hasTag('a;proxy_operator')).toBe(true);
    expect(hasTag('PROXY_OPERATOR,b')).toBe(true);
    expect(hasTag('proxy_operators')).toBe(false);
    expect(hasTag(undefined)).toBe(false);
  });
});

describe('vmid', () => {
  it('FNV-1a 32 matches the published test vectors', () => {
    expect(fnv1a32('')).toBe(0x811c9dc5);
    expect(fnv1a32('a')).toBe(0xe40c292c);
    expect(fnv1a32('foobar')).toBe(0xbf9cf968);
  });
  it('probes forward inside the range and wraps', () => {
    const r = { min: 100, max: 131 };
    const seen = new Set(Array.from({ length: 32 }, (_, i) => vmidFor('uid', i, r)));
    expect(seen.size).toBe(32);
    for (const v of seen) expect(v >= 100 && v <= 131).toBe(true);
    expect(vmidFor('uid', 1, r) - vmidFor('uid', 0, r)).toSatisfy((d: number) => d === 1 || d === -31);
  });
});

describe('state table', () => {
  const addr = { kind: 'address', ip: '10.0.0.5' } as const;
  it.each([
    ['running', 'running', addr, 'Running'],
    ['running', 'running', { kind: 'no-ipv4' }, 'Provisioning'],
    ['running', 'running', { kind: 'not-running' }, 'Provisioning'],
    ['running', 'running', { kind: 'not-configured' }, 'Stopped'],
    ['running', 'prelaunch', { kind: 'not-asked' }, 'Provisioning'],
    ['running', 'paused', { kind: 'not-asked' }, 'Stopped'],
    ['running', 'suspended', { kind: 'not-asked' }, 'Stopped'],
    ['running', 'io-error', { kind: 'not-asked' }, 'Stopped'],
    ['stopped', 'stopped', { kind: 'not-asked' }, 'Stopped'],
    ['unknown', undefined, { kind: 'not-asked' }, 'Stopped'],
  ] as const)('%s/%s/%j -> %s', (status, qmp, agent, want) => {
    expect(mapState(status, qmp, agent)).toBe(want);
  });
  it('firstIPv4 skips lo, loopback, link-local and IPv6, in agent order', () => {
    expect(
      firstIPv4([
        { name: 'lo', 'ip-addresses': [{ 'ip-address': '127.0.0.1', 'ip-address-type': 'ipv4' }] },
        {
          name: 'eth0',
          'ip-addresses': [
            { 'ip-address': 'fe80::1', 'ip-address-type': 'ipv6' },
            { 'ip-address': '169.254.1.1', 'ip-address-type': 'ipv4' },
          ],
        },
        { name: 'eth1', 'ip-addresses': [{ 'ip-address': '192.168.7.9', 'ip-address-type': 'ipv4' }] },
        { name: 'eth2', 'ip-addresses': [{ 'ip-address': '10.0.0.1', 'ip-address-type': 'ipv4' }] },
      ]),
    ).toBe('192.168.7.9');
    expect(firstIPv4([{ name: 'eth0' }])).toBeUndefined();
  });
});

describe('vm config helpers', () => {
  const cfg = {
    boot: 'order=ide2;virtio0;net0',
    ide2: 'local:iso/x.iso,media=cdrom',
    virtio0: 'local-lvm:vm-1-disk-0,size=8G',
    scsi0: 'local-lvm:vm-1-disk-1,size=2G',
  };
  it('finds the boot disk by boot order, skipping cdroms', () => {
    expect(bootDisk(cfg)).toBe('virtio0');
    expect(bootDisk({ scsi0: 'x,size=1G' })).toBe('scsi0');
    expect(bootDisk({ ide2: 'none,media=cdrom' })).toBeUndefined();
  });
  it('parses sizes in K/M/G/T', () => {
    expect(diskSizeGiB('a,size=8G')).toBe(8);
    expect(diskSizeGiB('a,size=512M')).toBe(0.5);
    expect(diskSizeGiB('a,size=1T,ssd=1')).toBe(1024);
    expect(diskSizeGiB('a')).toBeUndefined();
  });
  it('spots a cloud-init drive', () => {
    expect(hasCloudInitDrive({ ide0: 'local-lvm:vm-1-cloudinit,media=cdrom' })).toBe(true);
    expect(hasCloudInitDrive(cfg)).toBe(false);
  });
  it('rewrites net0 bridge and tag, keeping the rest', () => {
    expect(rewriteNet0('virtio=BC:24:11:AA:BB:CC,bridge=vmbr0,firewall=1', 'vmbr9', 7)).toBe(
      'virtio=BC:24:11:AA:BB:CC,bridge=vmbr9,firewall=1,tag=7',
    );
    expect(rewriteNet0('virtio=BC:24:11:AA:BB:CC,bridge=vmbr0,tag=3', undefined, 5)).toBe(
      'virtio=BC:24:11:AA:BB:CC,bridge=vmbr0,tag=5',
    );
  });
});

describe('seed names and the upload body', () => {
  it('maps seed volumes back to their instance', () => {
    expect(seedOwner(`local:iso/${seedFileName('proxy-abc')}`)).toBe('proxy-abc');
    expect(seedOwner('local:iso/debian.iso')).toBeUndefined();
    expect(seedOwner('local:iso/other-seed.iso')).toBeUndefined();
  });
  it('sends content first and the file in the part named filename', () => {
    const data = Buffer.from('ISO\r\n--bytes');
    const { body, contentType } = buildIsoUpload('proxy-a-seed.iso', data);
    const parts = parseMultipart(body, contentType)!;
    expect(parts.map((p) => [p.name, p.filename])).toEqual([
      ['content', undefined],
      ['filename', 'proxy-a-seed.iso'],
    ]);
    expect(parts[0]!.data.toString()).toBe('iso');
    expect(Buffer.compare(parts[1]!.data, data)).toBe(0);
  });
});

describe('KeyedLimiter', () => {
  it('never runs more than the limit per key, and keys are independent', async () => {
    const l = new KeyedLimiter(2);
    let active = 0;
    let peak = 0;
    const job = (key: string) =>
      l.run(key, async () => {
        active++;
        peak = Math.max(peak, active);
        await new Promise((r) => setTimeout(r, 5));
        active--;
      });
    await Promise.all([...Array.from({ length: 10 }, () => job('a')), job('b')]);
    expect(l.peak('a')).toBe(2);
    expect(l.peak('b')).toBe(1);
    expect(peak).toBe(3);
  });
  it('a waiter whose signal aborts leaves the queue', async () => {
    const l = new KeyedLimiter(1);
    let release!: () => void;
    const holder = l.run('k', () => new Promise<void>((r) => (release = r)));
    const ac = new AbortController();
    const waiter = l.run('k', async () => 'ran', ac.signal);
    ac.abort();
    await expect(waiter).rejects.toMatchObject({ name: 'AbortError' });
    release();
    await holder;
    await expect(l.run('k', async () => 'next')).resolves.toBe('next');
  });
});
