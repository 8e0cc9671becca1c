import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { newProxy, referenceHandle } from '../../../test/support/reconcile-fixture.js';
import { credentialDigest, credentialFiles } from '../../providers/fingerprint.js';
import { MemoryProxyStore } from '../store/memory-proxy-store.js';
import { ProxyController } from './proxy-controller.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function until(what: string, fn: () => boolean, ms = 20_000) {
  const deadline = Date.now() + ms;
  while (!fn()) {
    if (Date.now() > deadline) throw new Error(`timed out: ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

function setup(extra: Partial<ConstructorParameters<typeof ProxyController>[0]> = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'credential-latch-'));
  dirs.push(dir);
  const tokenFile = join(dir, 'token');
  writeFileSync(tokenFile, 'old-token');
  const { handle, backend } = referenceHandle();
  const h = {
    ...handle,
    credentialFiles: credentialFiles({ config: { tokenFile, hosts: [{ name: 'a' }] } }),
  };
  const store = new MemoryProxyStore();
  const c = new ProxyController({
    store,
    providers: { get: (n) => (n === 'ref' ? h : undefined), names: () => ['ref'] },
    installation: 'install-A',
    probe: async () => ({ ok: true, latencyMs: 1 }),
    pollIntervalMs: 5,
    credentialPollMs: 10,
    ...extra,
  });
  return { store, c, backend, tokenFile };
}

const phase = (s: MemoryProxyStore) => s.get('ns1/p1')?.status?.phase;

describe('ProxyController: latched failures and fixes made outside the spec', () => {
  it('finds the credential files of an entry and digests their contents', async () => {
    expect(
      credentialFiles({
        config: { sshKeyFile: '/k', hosts: [{ caFile: '/ca' }], kubeconfig: '/kc', name: 'x' },
      }),
    ).toEqual(['/ca', '/k', '/kc']);
    expect(await credentialDigest([])).toBe('');
    expect(await credentialDigest(['/nonexistent/a'])).not.toBe(await credentialDigest(['/nonexistent/b']));
  });

  it('releases an AUTH_FAILED latch when a credential file changes', async () => {
    const { store, c, backend, tokenFile } = setup();
    backend.breakHost('alpha', 'auth');
    store.put(newProxy());
    c.start();
    await until('Failed', () => phase(store) === 'Failed');
    expect(store.get('ns1/p1')?.status?.failure?.credentials).toMatch(/^[0-9a-f]{16}$/);
    // Fixed on the backend alone: the latch holds (its retry is 30 min away).
    backend.breakHost('alpha', undefined);
    await new Promise((r) => setTimeout(r, 100));
    expect(phase(store)).toBe('Failed');
    writeFileSync(tokenFile, 'rotated-token');
    await until('Ready after the rotation', () => phase(store) === 'Ready');
    await c.stop();
  });

  it('retries a latched failure once its next attempt is due, and says when that is', async () => {
    const { store, c, backend } = setup({ latchRetryMs: 200 });
    backend.breakHost('alpha', 'auth');
    store.put(newProxy());
    c.start();
    await until('Failed', () => phase(store) === 'Failed');
    const st = store.get('ns1/p1')!.status!;
    expect(st.message).toMatch(/; next attempt at \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(Date.parse(st.failure!.nextRetryTime!)).toBeGreaterThan(Date.now() - 1000);
    backend.breakHost('alpha', undefined);
    await until('Ready after the retry', () => phase(store) === 'Ready');
    await c.stop();
  });
});
