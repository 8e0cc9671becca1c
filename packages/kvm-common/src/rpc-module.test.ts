import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ErrorCode, ErrorKind, ProviderError } from '@egress-proxies/contract';
import { afterEach, describe, expect, it, vi } from 'vitest';

// Each test loads the package afresh with its own stand-in for libvirt-rpc-ts's main entry
// (./codes stays real), so what the package loads, and when, is observable.
const dirs: string[] = [];
afterEach(() => {
  vi.doUnmock('libvirt-rpc-ts');
  vi.resetModules();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const loads = { n: 0 };

function mockClientModule(fail: () => boolean): void {
  loads.n = 0;
  vi.resetModules();
  vi.doMock('libvirt-rpc-ts', async (original) => {
    loads.n += 1;
    if (fail()) throw new Error('Cannot find module libvirt-rpc-ts/dist/index.js');
    return original();
  });
}

function config() {
  const dir = mkdtempSync(join(tmpdir(), 'kvm-common-rpc-'));
  dirs.push(dir);
  writeFileSync(join(dir, 'key'), 'KEY-MATERIAL');
  return {
    sshKeyFile: join(dir, 'key'),
    insecureIgnoreHostKey: true,
    images: { deb: { url: 'http://images.invalid/deb.qcow2' } },
    machineTypes: { small: { vcpus: 1, memoryMiB: 512 } },
    // Port 9 on an address that is never routed: a loaded client would fail to connect, not hang.
    hosts: [{ name: 'alpha', address: '192.0.2.1:9', user: 'virt', bridge: 'br0' }],
  };
}

describe('the libvirt client module', () => {
  it('is not loaded by importing the package, building a provider or classifying an error', async () => {
    mockClientModule(() => false);
    const pkg = await import('./index.js');
    const { testFlavour } = await import('./test/flavour.js');
    const provider = pkg.createKvmFamilyProvider(testFlavour, config(), { name: 'p1' });
    const { ErrorNumber } = await import('libvirt-rpc-ts/codes');
    const { libvirtError } = await import('./test/fake-libvirt.js');
    const err = libvirtError(ErrorNumber.VIR_ERR_NO_DOMAIN, 'no domain');
    expect(pkg.classify('get', err)).toMatchObject({ kind: ErrorKind.NotFound });
    expect(loads.n).toBe(0);
    await provider.close();
  });

  it('loads once, on the first use', async () => {
    mockClientModule(() => false);
    const { loadRpc } = await import('./rpc-module.js');
    const [a, b] = await Promise.all([loadRpc(), loadRpc()]);
    expect(typeof a.connectSsh).toBe('function');
    expect(b).toBe(a);
    expect(loads.n).toBe(1);
  });

  it('that fails to load fails the call as the provider error of a broken install, and is retried', async () => {
    let failing = true;
    mockClientModule(() => failing);
    const pkg = await import('./index.js');
    const { testFlavour } = await import('./test/flavour.js');
    const provider = pkg.createKvmFamilyProvider(testFlavour, config(), { name: 'p1' });
    const err = await provider.get('hosts/alpha/domains/proxy-a').then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(ProviderError.isInstance(err)).toBe(true);
    expect(err).toMatchObject({
      kind: ErrorKind.Permanent,
      code: ErrorCode.BackendError,
      provider: 'p1',
      reason: expect.stringMatching(
        /^cannot load the libvirt client module libvirt-rpc-ts \(.+\); reinstall the package$/,
      ),
      cause: expect.any(Error),
    });
    expect(loads.n).toBe(1);
    // The next call imports again: a repaired install needs no restart.
    failing = false;
    const { loadRpc } = await import('./rpc-module.js');
    await expect(loadRpc()).resolves.toHaveProperty('connectSsh');
    expect(loads.n).toBe(2);
    await provider.close();
  });
});
