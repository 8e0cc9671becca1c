import { type LibvirtTestEnv, startLibvirtTestEnv } from '@egress-proxies/testenv-libvirt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CallEvent, connectUnix, TransportError } from '../src/index.js';
import { defineIntegrationCases } from './integration-cases.js';

let env: LibvirtTestEnv;
beforeAll(async () => {
  env = await startLibvirtTestEnv();
});
afterAll(async () => {
  await env?.teardown();
});

describe('libvirtd over the unix socket', () => {
  defineIntegrationCases({
    env: () => env,
    connect: () => connectUnix(env.socketPath, { uri: env.uri, keepalive: true, timeoutMs: 30_000 }),
  });

  it('reports a missing socket clearly', async () => {
    const err = await connectUnix(`${env.baseDir}/no-such-sock`).catch((e) => e);
    expect(TransportError.isInstance(err)).toBe(true);
    expect(err.message).toMatch(/no-such-sock does not exist/);
  });

  it('reports each call to the onCall hook', async () => {
    const events: CallEvent[] = [];
    const c = await connectUnix(env.socketPath, { onCall: (e) => events.push(e) });
    await c.domainLookupByName('ep-rpc-test-missing').catch(() => undefined);
    await c.close();
    expect(events.map((e) => e.procedure)).toEqual([
      'AUTH_LIST',
      'CONNECT_OPEN',
      'DOMAIN_LOOKUP_BY_NAME',
      'CONNECT_CLOSE',
    ]);
    expect((events[2]?.error as { code?: number } | undefined)?.code).toBe(42);
  });
});
