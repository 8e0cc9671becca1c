import { ErrorCode, ProviderError } from '@egress-proxies/contract';
import { describe, expect, it } from 'vitest';
import { KVM_DEFAULTS, parseKvmConfig } from './config.js';

const block = () => ({
  sshKeyFile: '/etc/egress-proxies/kvm/id_ed25519',
  knownHostsFile: '/etc/egress-proxies/kvm/known_hosts',
  images: { 'debian-13': { url: 'https://cloud.debian.org/images/debian-13-generic-amd64.qcow2' } },
  machineTypes: { small: { vcpus: 1, memoryMiB: 1024 } },
  hosts: [{ name: 'nas1', address: 'nas1.home.lan:22', user: 'virt', bridge: 'br0' }],
});

/** The `<type>.<path>: <message>` lines of the one config error a bad block throws. */
function lines(input: unknown, type: 'kvm' | 'kvm2' = 'kvm2'): string[] {
  try {
    parseKvmConfig(type, input, 'home');
  } catch (err) {
    if (!ProviderError.isInstance(err)) throw err;
    expect([err.kind, err.code, err.provider]).toEqual(['Permanent', ErrorCode.InvalidConfig, 'home']);
    return err.reason.split('\n').slice(1);
  }
  throw new Error('expected the block to be rejected');
}

describe('the kvm and kvm2 block', () => {
  it('fills its defaults', () => {
    const c = parseKvmConfig('kvm2', block());
    expect(c).toMatchObject({
      diskSizeGb: KVM_DEFAULTS.diskSizeGb,
      insecureIgnoreHostKey: false,
      installGuestAgent: true,
      domainType: 'kvm',
    });
    expect(c.images['debian-13']).toMatchObject({ format: 'qcow2', firmware: 'uefi' });
    expect(c.hosts[0]).toMatchObject({ socket: '/var/run/libvirt/libvirt-sock', pool: 'default' });
  });

  it('names a typo with a did-you-mean, a wrong type and an out-of-range value, under the type', () => {
    expect(lines({ ...block(), diskSizeGB: 20 })[0]).toMatch(
      /^kvm2\.diskSizeGB: unknown key "diskSizeGB" \(did you mean "diskSizeGb"\?\) \(known: sshKeyFile, /,
    );
    expect(lines({ ...block(), installGuestAgent: 'yes' }, 'kvm')).toEqual([
      'kvm.installGuestAgent: expected boolean, got string "yes"',
    ]);
    expect(lines({ ...block(), diskSizeGb: 0 })).toEqual(['kvm2.diskSizeGb: must be >= 1, got 0']);
  });

  it('words each rule with the bad value', () => {
    const b = block();
    expect(lines({ ...b, hosts: [{ ...b.hosts[0], bridge: undefined }] })).toEqual([
      'kvm2.hosts[0].bridge: required',
    ]);
    expect(lines({ ...b, images: { 'debian-13': { url: 'ftp://mirror/d.qcow2' } } })).toEqual([
      'kvm2.images.debian-13.url: "ftp://mirror/d.qcow2" must start with http:// or https://',
    ]);
    expect(lines({ ...b, images: { d: { url: 'https://x.example/a', sha256: 'abc123' } } })).toEqual([
      'kvm2.images.d.sha256: "abc123" is not a sha256 digest (64 hex digits)',
    ]);
    expect(lines({ ...b, images: { 'my image/1': { url: 'https://x.example/a' } } })).toEqual([
      'kvm2.images["my image/1"]: invalid key "my image/1": "my image/1" is not a valid image key (letters, digits, ".", "_", "-"; starts and ends with a letter or digit; at most 63)',
    ]);
    expect(lines({ ...b, machineTypes: {} })).toEqual([
      'kvm2.machineTypes: needs at least 1 machine type entry, got none',
    ]);
    expect(lines({ ...b, hosts: [{ ...b.hosts[0], address: 'nas1.home.lan' }] })).toEqual([
      'kvm2.hosts[0].address: "nas1.home.lan" is not host:port (for example nas1.lan:22 or [fd00::1]:22)',
    ]);
    expect(lines({ ...b, hosts: [b.hosts[0], { ...b.hosts[0], address: 'nas2:22' }] })).toEqual([
      'kvm2.hosts[1].name: duplicate host name "nas1" (first at [0])',
    ]);
    expect(lines({ ...b, domainType: 'xen' })).toEqual([
      'kvm2.domainType: must be one of "kvm", "qemu", got "xen"',
    ]);
  });

  it('needs known_hosts unless host keys are explicitly not verified, even beside another bad field', () => {
    const { knownHostsFile: _, ...b } = block();
    expect(lines({ ...b, diskSizeGb: -1 })).toEqual([
      'kvm2.diskSizeGb: must be >= 1, got -1',
      'kvm2.knownHostsFile: required unless insecureIgnoreHostKey is true',
    ]);
    expect(parseKvmConfig('kvm', { ...b, insecureIgnoreHostKey: true }).knownHostsFile).toBeUndefined();
  });
});
