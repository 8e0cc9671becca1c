import { generateKeyPairSync } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger, type LogLine } from '@egress-proxies/provider-utils';
import { afterEach, describe, expect, it } from 'vitest';
import { createGcpProvider, type GcpProvider } from '../src/provider.js';
import { FakeCompute } from '../src/test/fake-compute.js';
import { rejection, request } from './helpers.js';

const EMAIL = 'proxy-operator@fake-project.iam.gserviceaccount.com';

let fake: FakeCompute | undefined;
let dir: string | undefined;
let provider: GcpProvider | undefined;
afterEach(async () => {
  await provider?.close?.();
  await fake?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
  fake = undefined;
  dir = undefined;
});

/** A service-account key file as the console issues it, with a freshly generated RSA key. */
async function keyFile(register: boolean): Promise<{ path: string; privateKey: string }> {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  if (register)
    fake!.registerServiceAccount(EMAIL, publicKey.export({ type: 'spki', format: 'pem' }).toString());
  dir = await mkdtemp(join(tmpdir(), 'gcp-sa-'));
  const path = join(dir, 'key.json');
  await writeFile(
    path,
    JSON.stringify({
      type: 'service_account',
      project_id: 'fake-project',
      private_key_id: 'a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6e7f8a9b0',
      private_key: pem,
      client_email: EMAIL,
      client_id: '123456789012345678901',
      auth_uri: 'https://accounts.google.com/o/oauth2/auth',
      token_uri: 'https://oauth2.googleapis.com/token',
    }),
  );
  return { path, privateKey: pem };
}

describe('service-account credentials through google-auth-library', () => {
  it('exchanges a signed JWT at the token endpoint and sends the token, never logging it', async () => {
    fake = await FakeCompute.start({ requireAuth: true });
    const key = await keyFile(true);
    const lines: LogLine[] = [];
    provider = createGcpProvider(
      { project: fake.project },
      {
        name: 'gcp-sa',
        endpoint: fake.url,
        keyFile: key.path,
        tokenUrl: fake.tokenUrl,
        logger: createLogger({ verbosity: 2, sink: (l) => lines.push(l) }),
      },
    );
    const id = await provider.create(request());
    await provider.get(id);
    await provider.listByTag();
    const [check] = await provider.check();
    expect(check).toMatchObject({ ready: true });

    expect(fake.tokensIssuedTo).toEqual([EMAIL]);
    const api = fake.calls.filter((c) => c.step !== 'oauth.token');
    expect(api.length).toBeGreaterThanOrEqual(4);
    expect(api.every((c) => c.authorized && c.status === 200)).toBe(true);

    const logged = JSON.stringify(lines);
    const [token] = fake.issuedTokens();
    expect(token).toMatch(/^ya29\.fake-/);
    expect(logged).not.toContain(token!);
    expect(logged).not.toContain('PRIVATE KEY');
    expect(logged).not.toContain(key.privateKey.split('\n')[1]!);
  });

  it('finds the key through Application Default Credentials (GOOGLE_APPLICATION_CREDENTIALS)', async () => {
    fake = await FakeCompute.start({ requireAuth: true });
    const key = await keyFile(true);
    const saved = process.env.GOOGLE_APPLICATION_CREDENTIALS;
    process.env.GOOGLE_APPLICATION_CREDENTIALS = key.path;
    try {
      provider = createGcpProvider(
        { project: fake.project },
        { endpoint: fake.url, tokenUrl: fake.tokenUrl },
      );
      expect(await provider.listByTag()).toEqual([]);
      expect(fake.tokensIssuedTo).toEqual([EMAIL]);
    } finally {
      if (saved === undefined) delete process.env.GOOGLE_APPLICATION_CREDENTIALS;
      else process.env.GOOGLE_APPLICATION_CREDENTIALS = saved;
    }
  });

  it('a key the token endpoint refuses is CredentialsUnavailable, with no secret in the error', async () => {
    fake = await FakeCompute.start({ requireAuth: true });
    const key = await keyFile(false);
    provider = createGcpProvider(
      { project: fake.project },
      { name: 'gcp-sa', endpoint: fake.url, keyFile: key.path, tokenUrl: fake.tokenUrl },
    );
    const [check] = await provider.check();
    expect(check).toMatchObject({ ready: false, reason: 'CredentialsUnavailable' });
    const e = await rejection(provider.get('zones/us-central1-a/instances/proxy-0000000000000001'));
    expect(e).toMatchObject({ kind: 'Transient', code: 'CREDENTIALS_UNAVAILABLE', provider: 'gcp-sa' });
    expect(e.message).not.toContain('PRIVATE KEY');
    expect(fake.calls.filter((c) => c.step !== 'oauth.token')).toEqual([]);
  });

  it('without a token the fake answers 401 and the provider says Permanent AUTH_FAILED', async () => {
    fake = await FakeCompute.start({ requireAuth: true });
    const { noAuth } = await import('../src/auth.js');
    provider = createGcpProvider({ project: fake.project }, { endpoint: fake.url, auth: noAuth });
    const e = await rejection(provider.get('zones/us-central1-a/instances/proxy-0000000000000001'));
    expect(e).toMatchObject({ kind: 'Permanent', code: 'AUTH_FAILED' });
  });
});
