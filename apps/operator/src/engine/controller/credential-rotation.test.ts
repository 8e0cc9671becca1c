import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gcpProviderFactory } from '@egress-proxies/provider-gcp';
import { FakeCompute } from '@egress-proxies/provider-gcp/test';
import { createProxmoxProvider } from '@egress-proxies/provider-proxmox';
import { type FakeSetup, startFakeSetup } from '@egress-proxies/provider-proxmox/test';
import { afterEach, describe, expect, it } from 'vitest';
import { newProxy } from '../../../test/support/reconcile-fixture.js';
import { credentialFiles } from '../../providers/fingerprint.js';
import type { ProviderHandle } from '../reconcile/types.js';
import { MemoryProxyStore } from '../store/memory-proxy-store.js';
import { ProxyController } from './proxy-controller.js';

// The whole path of a rotated credential through real providers over their wire-level fakes: a
// Proxy latched Failed on rejected credentials goes Ready once the file the provider reads is
// replaced, with no edit of its spec or of the provider entry.

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function until(what: string, fn: () => boolean, ms = 30_000) {
  const deadline = Date.now() + ms;
  while (!fn()) {
    if (Date.now() > deadline) throw new Error(`timed out: ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

function run(handle: ProviderHandle) {
  const store = new MemoryProxyStore();
  const c = new ProxyController({
    store,
    providers: { get: (n) => (n === handle.name ? handle : undefined), names: () => [handle.name] },
    installation: 'install-A',
    probe: async () => ({ ok: true, latencyMs: 1 }),
    pollIntervalMs: 20,
    credentialPollMs: 20,
    rateLimiter: {
      jitter: 0,
      tiers: { transient: { baseMs: 20, maxMs: 200 }, quota: { baseMs: 20, maxMs: 200 } },
    },
  });
  cleanups.push(() => c.stop(0));
  c.start();
  return { store, c };
}

const status = (store: MemoryProxyStore, name: string) => store.get(`ns1/${name}`)?.status;

describe('a rotated credential file releases the latch, and the provider reads the new one', () => {
  it('proxmox: a revoked API token replaced in the token file', async () => {
    const s: FakeSetup = await startFakeSetup();
    cleanups.push(() => s.close());
    // The token in the file is revoked on the PVE side: every request is refused (401).
    s.fake.revokeToken('root@pam!operator');
    const config = s.config;
    const provider = createProxmoxProvider(config as never, {
      name: 'pve',
      budgets: { pollMs: 5, runningMs: 5_000, checkMs: 5_000 },
    });
    cleanups.push(() => provider.close());
    const handle: ProviderHandle = {
      name: 'pve',
      type: 'proxmox',
      provider,
      fingerprint: 'fp',
      credentialFiles: credentialFiles({ type: 'proxmox', config }),
    };
    expect(handle.credentialFiles).toContain(s.tokenFile);
    const { store } = run(handle);
    store.put(
      newProxy({ provider: 'pve', placement: { zone: 'pve1', machineType: 'small', image: 'debian' } }),
    );
    await until('latched Failed', () => status(store, 'p1')?.phase === 'Failed');
    expect(status(store, 'p1')?.failure?.credentials).toMatch(/^[0-9a-f]{16}$/);
    expect(status(store, 'p1')?.message).toMatch(/Authentication failed/);
    const generation = store.get('ns1/p1')?.metadata.generation;

    writeFileSync(s.tokenFile, `${s.fake.addToken('root@pam!rotated')}\n`);
    await until('Ready with the rotated token', () => status(store, 'p1')?.phase === 'Ready');
    expect(store.get('ns1/p1')?.metadata.generation).toBe(generation);
    expect(s.fake.calls.some((c) => c.tokenId === 'root@pam!rotated' && c.status === 200)).toBe(true);
  });

  it("gcp: a disabled service account's key file ($GOOGLE_APPLICATION_CREDENTIALS) replaced in place", async () => {
    const fake = await FakeCompute.start({
      requireAuth: true,
      clock: 'real',
      timings: { stagingAfterMs: 10, runningAfterMs: 20, insertDoneAfterMs: 10, deleteAfterMs: 10 },
    });
    cleanups.push(() => fake.close());
    const dir = mkdtempSync(join(tmpdir(), 'gcp-rotation-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const keyPath = join(dir, 'key.json');
    const writeKey = (email: string) => {
      const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
      fake.registerServiceAccount(email, publicKey.export({ type: 'spki', format: 'pem' }).toString());
      writeFileSync(
        keyPath,
        JSON.stringify({
          type: 'service_account',
          project_id: fake.project,
          private_key_id: email.slice(0, 8),
          private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
          client_email: email,
          client_id: '1',
          token_uri: fake.tokenUrl,
        }),
      );
    };
    const first = 'op-one@fake-project.iam.gserviceaccount.com';
    const second = 'op-two@fake-project.iam.gserviceaccount.com';
    writeKey(first);
    const saved = process.env.GOOGLE_APPLICATION_CREDENTIALS;
    process.env.GOOGLE_APPLICATION_CREDENTIALS = keyPath;
    cleanups.push(() => {
      if (saved === undefined) delete process.env.GOOGLE_APPLICATION_CREDENTIALS;
      else process.env.GOOGLE_APPLICATION_CREDENTIALS = saved;
    });
    // The bundled factory, with the entry's config as the providers file would give it.
    const config = { project: fake.project, endpoint: fake.url };
    const { provider } = gcpProviderFactory.create(config as never, { name: 'gcp' });
    cleanups.push(() => provider.close?.());
    const handle: ProviderHandle = {
      name: 'gcp',
      type: 'gcp',
      provider,
      fingerprint: 'fp',
      credentialFiles: credentialFiles({ type: 'gcp', config }),
    };
    expect(handle.credentialFiles).toEqual([keyPath]);
    const { store } = run(handle);
    const placement = {
      zone: fake.zones[0]!,
      machineType: 'e2-small',
      image: 'projects/debian-cloud/global/images/family/debian-12',
    };
    store.put(newProxy({ provider: 'gcp', placement }, 'before'));
    await until('the first Proxy Ready', () => status(store, 'before')?.phase === 'Ready');

    // The account is disabled: the token the provider holds is refused (401, Permanent).
    fake.disableServiceAccount(first);
    store.put(newProxy({ provider: 'gcp', placement }, 'after'));
    await until('latched Failed', () => status(store, 'after')?.phase === 'Failed');
    expect(status(store, 'after')?.conditions?.find((c) => c.type === 'Provisioned')?.reason).toBe(
      'PermanentError',
    );

    writeKey(second);
    await until('Ready with the new key', () => status(store, 'after')?.phase === 'Ready');
    expect(fake.tokensIssuedTo).toEqual([first, second]);
  });
});
