import { generateKeyPairSync, sign } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeCompute } from '../src/test/fake-compute.js';

let fake: FakeCompute;
afterEach(async () => {
  await fake?.close();
});

const api = (path: string, init?: RequestInit) =>
  fetch(`${fake.url}/compute/v1/projects/${fake.project}/${path}`, init).then(async (r) => ({
    status: r.status,
    body: (await r.json()) as Record<string, unknown>,
  }));

const insert = (zone: string, name: string, requestId: string, labels: Record<string, string> = {}) =>
  api(`zones/${zone}/instances?requestId=${requestId}`, {
    method: 'POST',
    body: JSON.stringify({ name, machineType: `zones/${zone}/machineTypes/e2-small`, labels }),
  });

describe('FakeCompute', () => {
  it('deduplicates request IDs and answers a second insert of the name with a Compute 409 body', async () => {
    fake = await FakeCompute.start();
    const a = await insert('us-central1-a', 'vm-1', 'r1');
    const b = await insert('us-central1-a', 'vm-1', 'r1');
    expect(a.status).toBe(200);
    expect(b.body.name).toBe(a.body.name);
    const c = await insert('us-central1-a', 'vm-1', 'r2');
    expect(c.status).toBe(409);
    expect(c.body).toMatchObject({
      error: { code: 409, errors: [{ reason: 'alreadyExists', domain: 'global' }] },
    });
  });

  it('finishes operations on its clock and moves instances through their states', async () => {
    fake = await FakeCompute.start({
      timings: { stagingAfterMs: 10, runningAfterMs: 20, insertDoneAfterMs: 15 },
    });
    const op = await insert('us-central1-a', 'vm-1', 'r1');
    const opPath = `zones/us-central1-a/operations/${op.body.name}`;
    expect((await api(opPath)).body.status).toBe('RUNNING');
    expect((await api('zones/us-central1-a/instances/vm-1')).body.status).toBe('PROVISIONING');
    fake.advance(12);
    expect((await api('zones/us-central1-a/instances/vm-1')).body.status).toBe('STAGING');
    fake.advance(10);
    expect((await api(opPath)).body.status).toBe('DONE');
    expect((await api('zones/us-central1-a/instances/vm-1')).body.status).toBe('RUNNING');
  });

  it('pages the aggregated list, filters on labels and reports unreachable zones only with partial success', async () => {
    fake = await FakeCompute.start();
    for (const [i, z] of ['us-central1-a', 'us-central1-b', 'europe-west1-b', 'us-central1-a'].entries()) {
      await insert(z, `vm-${i}`, `r${i}`, { owner: i === 3 ? 'other' : 'me' });
    }
    const filter = encodeURIComponent('labels.owner = "me"');
    const p1 = await api(`aggregated/instances?filter=${filter}&maxResults=2`);
    const p2 = await api(
      `aggregated/instances?filter=${filter}&maxResults=2&pageToken=${p1.body.nextPageToken}`,
    );
    const names = [p1, p2].flatMap((p) =>
      Object.values(p.body.items as Record<string, { instances?: { name: string }[] }>).flatMap(
        (s) => s.instances?.map((i) => i.name) ?? [],
      ),
    );
    expect(names.sort()).toEqual(['vm-0', 'vm-1', 'vm-2']);
    expect(p2.body.nextPageToken).toBeUndefined();

    fake.setUnreachable(true, 'europe-west1-b');
    expect((await api('aggregated/instances')).status).toBe(503);
    const partial = await api('aggregated/instances?returnPartialSuccess=true');
    expect(partial.body.unreachables).toEqual(['zones/europe-west1-b']);
    expect(Object.keys(partial.body.items as object)).not.toContain('zones/europe-west1-b');
  });

  it('holds only labels Compute would accept, on insert and behind the API', async () => {
    fake = await FakeCompute.start();
    const refused = await insert('us-central1-a', 'vm-1', 'r1', { 'proxy-operator-managed': 'True' });
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ error: { errors: [{ reason: 'invalid' }] } });
    expect(JSON.stringify(refused.body)).toContain('proxy-operator-managed has value');
    expect(fake.instance('us-central1-a', 'vm-1')).toBeUndefined();
    expect((await insert('us-central1-a', 'vm-1', 'r2', { 'a-b_c': '', z: 'x'.repeat(63) })).status).toBe(
      200,
    );
    expect(() => fake.setLabels('us-central1-a', 'vm-1', { '1st': 'x' })).toThrow(
      /"1st" is not a valid label key/,
    );
    expect(() => fake.setLabels('us-central1-a', 'vm-1', { k: 'x'.repeat(64) })).toThrow(
      /not a valid label value/,
    );
    expect(() => fake.putInstance('us-central1-a', { name: 'vm-2', labels: { k: 'a b' } })).toThrow(/"a b"/);
    fake.setLabels('us-central1-a', 'vm-1', { 'proxy-operator-managed': 'tru' });
    expect(fake.instance('us-central1-a', 'vm-1')?.labels).toEqual({ 'proxy-operator-managed': 'tru' });
  });

  it('issues tokens only for JWTs signed by a registered key', async () => {
    fake = await FakeCompute.start({ requireAuth: true });
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const jwt = (iss: string) => {
      const now = Math.floor(Date.now() / 1000);
      const h = Buffer.from(JSON.stringify({ alg: 'RS256', typ: 'JWT' })).toString('base64url');
      const p = Buffer.from(
        JSON.stringify({
          iss,
          aud: 'https://oauth2.googleapis.com/token',
          scope: 'x',
          iat: now,
          exp: now + 60,
        }),
      ).toString('base64url');
      return `${h}.${p}.${sign('RSA-SHA256', Buffer.from(`${h}.${p}`), privateKey).toString('base64url')}`;
    };
    const exchange = (assertion: string) =>
      fetch(fake.tokenUrl, {
        method: 'POST',
        body: new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion }),
      });
    expect((await exchange(jwt('sa@p.iam.gserviceaccount.com'))).status).toBe(400);
    fake.registerServiceAccount(
      'sa@p.iam.gserviceaccount.com',
      publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    );
    const ok = await exchange(jwt('sa@p.iam.gserviceaccount.com'));
    const { access_token } = (await ok.json()) as { access_token: string };
    expect((await api('zones/us-central1-a/instances/vm-x')).status).toBe(401);
    const authed = await api('zones/us-central1-a/instances/vm-x', {
      headers: { authorization: `Bearer ${access_token}` },
    });
    expect(authed.status).toBe(404);
    expect(JSON.stringify(fake.calls)).not.toContain(access_token);
  });
});
