import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { fixKvmDevicePermissions } from './kvm-device.js';

const kvmGid = readFileSync('/etc/group', 'utf8')
  .split('\n')
  .find((l) => l.startsWith('kvm:'))
  ?.split(':')[2];

describe('fixKvmDevicePermissions', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });
  function device(mode: number): string {
    const dir = mkdtempSync(join(tmpdir(), 'ep-kvm-device-'));
    dirs.push(dir);
    const path = join(dir, 'kvm');
    writeFileSync(path, '', { mode });
    return path;
  }

  it('needs a kvm group on this machine (the libvirt packages create it)', () => {
    expect(kvmGid).toMatch(/^\d+$/);
  });

  it('gives a root-only device the kvm group and group read/write, once', () => {
    const path = device(0o600);
    expect(fixKvmDevicePermissions(path)).toBe(true);
    const st = statSync(path);
    expect(String(st.gid)).toBe(kvmGid);
    expect(st.mode & 0o777).toBe(0o660);
    expect(fixKvmDevicePermissions(path)).toBe(false);
  });

  it('keeps the bits it does not own (others stay as they were)', () => {
    const path = device(0o604);
    fixKvmDevicePermissions(path);
    expect(statSync(path).mode & 0o777).toBe(0o664);
  });

  it('changes nothing when there is no device (a machine without KVM)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ep-kvm-device-'));
    dirs.push(dir);
    expect(fixKvmDevicePermissions(join(dir, 'absent'))).toBe(false);
  });
});
