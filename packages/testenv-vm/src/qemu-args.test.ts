import { describe, expect, it } from 'vitest';
import { GUEST_FORWARD_ADDRESS, type QemuSpec, qemuArgs } from './qemu-args.js';

const spec: QemuSpec = {
  memoryMiB: 1024,
  cpus: 1,
  firmwareCode: '/fw/CODE.fd',
  firmwareVars: '/w/VARS.fd',
  overlay: '/w/overlay.qcow2',
  seedIso: '/w/seed,1.iso',
  serialLog: '/w/serial.log',
  agentSocket: '/w/agent.sock',
  hostProxyPort: 40123,
  guestProxyPort: 3128,
  guestForwards: [{ guestPort: 8080, command: "'/bin/node' '/w/relay.cjs' '4000'" }],
};

function optionValues(args: string[], flag: string): string[] {
  return args.flatMap((a, i) => (args[i - 1] === flag ? [a] : []));
}

describe('qemuArgs', () => {
  const args = qemuArgs(spec);

  it('uses TCG with a named CPU model, never KVM', () => {
    expect(optionValues(args, '-machine')).toEqual(['q35,accel=tcg']);
    expect(optionValues(args, '-cpu')).toEqual(['qemu64']);
    expect(args.join(' ')).not.toMatch(/kvm|host-passthrough/);
  });

  it('maps the firmware code read-only and the per-VM vars copy writable', () => {
    const drives = optionValues(args, '-drive');
    expect(drives).toContain('if=pflash,format=raw,unit=0,readonly=on,file=/fw/CODE.fd');
    expect(drives).toContain('if=pflash,format=raw,unit=1,file=/w/VARS.fd');
  });

  it('boots the overlay, never the base image, and attaches the seed as a SATA cdrom', () => {
    const drives = optionValues(args, '-drive');
    expect(drives).toContain('if=none,id=disk0,format=qcow2,file=/w/overlay.qcow2');
    expect(drives).toContain('if=none,id=seed0,format=raw,media=cdrom,readonly=on,file=/w/seed,,1.iso');
    expect(optionValues(args, '-device')).toContain('ide-cd,drive=seed0,bus=ide.0');
  });

  it('publishes the proxy port on host loopback only, in restricted user-mode networking', () => {
    const [netdev] = optionValues(args, '-netdev');
    const parts = netdev?.split(/,(?!,)/) ?? [];
    expect(parts).toContain('restrict=on');
    expect(parts).toContain('hostfwd=tcp:127.0.0.1:40123-:3128');
    expect(parts.filter((p) => p.startsWith('hostfwd='))).toHaveLength(1);
  });

  it('adds one guest forward per entry, on the forward address', () => {
    const [netdev] = optionValues(args, '-netdev');
    expect(netdev).toContain(
      `guestfwd=tcp:${GUEST_FORWARD_ADDRESS}:8080-cmd:'/bin/node' '/w/relay.cjs' '4000'`,
    );
  });

  it('wires the guest agent channel to the unix socket', () => {
    expect(optionValues(args, '-chardev')).toEqual(['socket,id=qga0,path=/w/agent.sock,server=on,wait=off']);
    expect(optionValues(args, '-device')).toContain(
      'virtserialport,chardev=qga0,name=org.qemu.guest_agent.0',
    );
    expect(optionValues(args, '-serial')).toEqual(['file:/w/serial.log']);
  });
});
