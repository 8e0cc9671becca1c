import { ErrorCode, InstanceState, isPermanent, ProviderError } from '@egress-proxies/contract';
import { DomainState } from 'libvirt-rpc-ts';
import { describe, expect, it } from 'vitest';
import { parseKvmConfig, splitAddress } from './config.js';
import { domainXml } from './domain-xml.js';
import { formatProviderId, parseProviderId, parseSecondaryId } from './id.js';
import { neededBytes, POOL_HEADROOM_BYTES } from './image.js';
import { KVM2_METADATA_NAMESPACE } from './marks.js';
import { metadataElement, parseMark } from './metadata.js';
import {
  baseVolumeName,
  markerVolumeName,
  overlayName,
  secondaryOf,
  seedName,
  urlImageKey,
} from './names.js';
import { firstIPv4, isRoutableIPv4, mapState } from './state.js';
import { testFlavour } from './test/flavour.js';
import { overlayVolumeXml, parseVolumeXml, rawVolumeXml } from './volume-xml.js';

describe('provider IDs', () => {
  it('round-trips hosts/<host>/domains/<name>', () => {
    const id = formatProviderId('h1', 'proxy-0123456789abcdef');
    expect(id).toBe('hosts/h1/domains/proxy-0123456789abcdef');
    expect(parseProviderId(id)).toEqual({ host: 'h1', name: 'proxy-0123456789abcdef' });
  });
  it.each([
    '',
    'x',
    'hosts/h1/domains',
    'hosts//domains/n',
    'hosts/h/domains/',
    'host/h/domains/n',
    'hosts/h/domain/n',
    'hosts/h/domains/n/x',
  ])('rejects %j as Permanent INVALID_ID naming it', (bad) => {
    let err: unknown;
    try {
      parseProviderId(bad);
    } catch (e) {
      err = e;
    }
    expect(isPermanent(err)).toBe(true);
    expect((err as ProviderError).code).toBe(ErrorCode.InvalidId);
    expect((err as ProviderError).message).toContain(JSON.stringify(bad));
  });
  it('parses secondary IDs', () => {
    expect(parseSecondaryId('hosts/h/volumes/proxy-a.qcow2')).toEqual({ host: 'h', volume: 'proxy-a.qcow2' });
    expect(() => parseSecondaryId('hosts/h/domains/x')).toThrow(ProviderError);
  });
});

describe('state table', () => {
  const rows: [number, string | undefined, InstanceState][] = [
    [DomainState.NOSTATE, undefined, InstanceState.Provisioning],
    [DomainState.NOSTATE, '10.0.0.5', InstanceState.Provisioning],
    [DomainState.RUNNING, undefined, InstanceState.Provisioning],
    [DomainState.RUNNING, '10.0.0.5', InstanceState.Running],
    [DomainState.BLOCKED, undefined, InstanceState.Provisioning],
    [DomainState.BLOCKED, '10.0.0.5', InstanceState.Running],
    [DomainState.PAUSED, '10.0.0.5', InstanceState.Stopped],
    [DomainState.SHUTDOWN, undefined, InstanceState.Stopped],
    [DomainState.SHUTOFF, undefined, InstanceState.Stopped],
    [DomainState.CRASHED, undefined, InstanceState.Stopped],
    [DomainState.PMSUSPENDED, undefined, InstanceState.Stopped],
    [99, '10.0.0.5', InstanceState.Stopped],
  ];
  it.each(rows)('state %i with ip %s is %s', (state, ip, want) => {
    expect(mapState(state, ip)).toBe(want);
  });
  it('firstIPv4 drops loopback, link-local, unspecified, multicast, IPv6 and mislabelled literals', () => {
    const ifs = [
      { name: 'lo', hwaddr: null, addrs: [{ type: 0, addr: '127.0.0.1', prefix: 8 }] },
      {
        name: 'eth0',
        hwaddr: '52:54:00:00:00:01',
        addrs: [
          { type: 1, addr: 'fe80::1', prefix: 64 },
          { type: 0, addr: '169.254.3.4', prefix: 16 },
          { type: 0, addr: '0.0.0.0', prefix: 0 },
          { type: 0, addr: '224.0.0.1', prefix: 4 },
          { type: 1, addr: '10.1.1.1', prefix: 24 },
          { type: 0, addr: '192.168.1.73', prefix: 24 },
          { type: 0, addr: '192.168.1.74', prefix: 24 },
        ],
      },
    ];
    expect(firstIPv4(ifs)).toBe('192.168.1.73');
    expect(firstIPv4([])).toBeUndefined();
    expect(isRoutableIPv4('300.1.1.1')).toBe(false);
  });
});

describe('config', () => {
  const base = {
    sshKeyFile: '/k',
    knownHostsFile: '/kh',
    machineTypes: { small: { vcpus: 1, memoryMiB: 512 } },
    hosts: [{ name: 'h1', address: 'h1.lan:22', user: 'virt', bridge: 'br0' }],
  };
  it('fills the defaults', () => {
    const c = parseKvmConfig('kvm2', base);
    expect(c.diskSizeGb).toBe(10);
    expect(c.domainType).toBe('kvm');
    expect(c.hosts[0]).toMatchObject({ pool: 'default', socket: '/var/run/libvirt/libvirt-sock' });
  });
  it('names the bad field under the block name', () => {
    const bad = {
      ...base,
      hosts: [{ name: 'h1', address: 'h1.lan:22', user: 'virt', bridge: 'no such bridge!' }],
    };
    expect(() => parseKvmConfig('kvm2', bad)).toThrow(/kvm2\.hosts\[0\]\.bridge: /);
    expect(() => parseKvmConfig('kvm', bad)).toThrow(/kvm\.hosts\[0\]\.bridge: /);
    expect(() => parseKvmConfig('kvm2', { ...base, knownHostsFile: undefined })).toThrow(
      /kvm2\.knownHostsFile/,
    );
  });
  it('splits addresses', () => {
    expect(splitAddress('h1.lan:2222')).toEqual({ host: 'h1.lan', port: 2222 });
    expect(splitAddress('h1.lan')).toEqual({ host: 'h1.lan', port: 22 });
    expect(splitAddress('[::1]:22')).toEqual({ host: '::1', port: 22 });
  });
});

describe('metadata', () => {
  const when = new Date('2026-01-02T03:04:05.000Z');
  it('writes the element in the flavour namespace and parses it back', () => {
    const el = metadataElement(testFlavour, {
      managed: true,
      uid: 'u-1',
      createdAt: when,
      installation: 'inst',
    });
    expect(el).toContain(`xmlns:${testFlavour.prefix}="${testFlavour.namespace}"`);
    expect(parseMark(el)).toEqual({ managed: true, uid: 'u-1', createdAt: when, installation: 'inst' });
  });
  it('parses by local name without the namespace declaration, as libvirt hands it back', () => {
    expect(parseMark(`<kvm2:instance managed="true" uid="abc" createdAt="${when.toISOString()}"/>`)).toEqual({
      managed: true,
      uid: 'abc',
      createdAt: when,
    });
    expect(
      parseMark(`<instance xmlns="${KVM2_METADATA_NAMESPACE}" managed='true' uid=''></instance>`),
    ).toEqual({
      managed: true,
      uid: '',
    });
  });
  it('an absent uid is empty, an unparsable createdAt is undefined', () => {
    expect(parseMark('<x:instance managed="true" createdAt="yesterday"/>')).toEqual({
      managed: true,
      uid: '',
    });
  });
  it.each([
    '<instance managed="true" uid=',
    '<other managed="true"/>',
    'garbage',
    '<instance managed=true/>',
  ])('a garbled element %j is Permanent', (xml) => {
    expect(() => parseMark(xml)).toThrow(ProviderError);
  });
  it('escapes attribute values', () => {
    const el = metadataElement(testFlavour, { managed: true, uid: 'a"<&>\'b' });
    expect(parseMark(el).uid).toBe('a"<&>\'b');
  });
});

describe('domain XML', () => {
  const spec = {
    name: 'proxy-0123456789abcdef',
    domainType: 'kvm' as const,
    vcpus: 2,
    memoryMiB: 1024,
    firmware: 'uefi' as const,
    overlayPath: '/pool/proxy-0123456789abcdef.qcow2',
    seedPath: '/pool/proxy-0123456789abcdef-seed.iso',
    bridge: 'br0',
    metadata: metadataElement(testFlavour, { managed: true, uid: 'u' }),
  };
  it('uses file disks with the resolved paths, never volume disks', () => {
    const xml = domainXml(spec);
    expect(xml).toContain('<disk type="file" device="disk">');
    expect(xml).toContain(`<source file="${spec.overlayPath}"/>`);
    expect(xml).toContain(`<source file="${spec.seedPath}"/>`);
    expect(xml).toMatch(/<target dev="sda" bus="sata"\/>/);
    expect(xml).not.toContain('type="volume"');
  });
  it('is q35 with UEFI and secure boot off by default, BIOS per image', () => {
    const uefi = domainXml(spec);
    expect(uefi).toContain('machine="q35"');
    expect(uefi).toContain('<os firmware="efi">');
    expect(uefi).toContain('<feature enabled="no" name="secure-boot"/>');
    const bios = domainXml({ ...spec, firmware: 'bios' });
    expect(bios).not.toContain('firmware="efi"');
  });
  it('has the NIC on the bridge, serial console, guest-agent channel, RNG and no graphics', () => {
    const xml = domainXml(spec);
    expect(xml).toContain('<interface type="bridge">');
    expect(xml).toContain('<source bridge="br0"/>');
    expect(xml).toContain('<model type="virtio"/>');
    expect(xml).toContain('<console type="pty">');
    expect(xml).toContain('name="org.qemu.guest_agent.0"');
    expect(xml).toContain('<rng model="virtio">');
    expect(xml).not.toContain('<graphics');
    expect(xml).toContain(`<metadata>${spec.metadata}</metadata>`);
  });
  it('host-passthrough CPU for kvm, a named model for qemu', () => {
    expect(domainXml(spec)).toContain('<cpu mode="host-passthrough"/>');
    const q = domainXml({ ...spec, domainType: 'qemu' });
    expect(q).toContain('<domain type="qemu">');
    expect(q).toContain('<model fallback="allow">qemu64</model>');
  });
  it('escapes paths', () => {
    expect(domainXml({ ...spec, overlayPath: '/p/a&b"c' })).toContain('/p/a&amp;b&quot;c');
  });
});

describe('volumes', () => {
  it('overlay is qcow2 backed by the base path', () => {
    const xml = overlayVolumeXml('proxy-a.qcow2', 10, '/pool/base-d.qcow2', 'qcow2');
    expect(xml).toContain('<capacity unit="GiB">10</capacity>');
    expect(xml).toContain(
      '<backingStore><path>/pool/base-d.qcow2</path><format type="qcow2"/></backingStore>',
    );
    expect(parseVolumeXml(xml)).toEqual({ capacity: 10 * 1024 ** 3, backingPath: '/pool/base-d.qcow2' });
  });
  it('reads what libvirt returns', () => {
    const xml = `<volume type='file'><name>x</name><capacity unit='bytes'>1073741824</capacity>
      <backingStore><path>/var/lib/libvirt/images/base-x.qcow2</path><format type='qcow2'/></backingStore></volume>`;
    expect(parseVolumeXml(xml)).toEqual({
      capacity: 1073741824,
      backingPath: '/var/lib/libvirt/images/base-x.qcow2',
    });
    expect(parseVolumeXml(rawVolumeXml('y', 5))).toEqual({ capacity: 5 });
  });
  it('names', () => {
    const img = { key: 'debian-13', url: 'https://x/y', format: 'qcow2' as const, firmware: 'uefi' as const };
    expect(baseVolumeName(img)).toBe('base-debian-13.qcow2');
    expect(markerVolumeName(img)).toBe('base-debian-13.qcow2.sha256');
    expect(overlayName('proxy-a')).toBe('proxy-a.qcow2');
    expect(seedName('proxy-a')).toBe('proxy-a-seed.iso');
    expect(secondaryOf('proxy-0123456789abcdef.qcow2')).toEqual({
      instance: 'proxy-0123456789abcdef',
      kind: 'overlay',
    });
    expect(secondaryOf('proxy-0123456789abcdef-seed.iso')).toEqual({
      instance: 'proxy-0123456789abcdef',
      kind: 'seed',
    });
    expect(secondaryOf('base-debian-13.qcow2')).toBeUndefined();
    expect(secondaryOf('base-debian-13.qcow2.sha256')).toBeUndefined();
    expect(urlImageKey('https://a/b')).toMatch(/^url-[0-9a-f]{16}$/);
  });
  it('needed bytes: image + disk + headroom', () => {
    expect(neededBytes(100, 1)).toBe(100 + 1024 ** 3 + POOL_HEADROOM_BYTES);
  });
});
