import { connect } from 'node:net';
import { hostname } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LibvirtTestEnv, libvirtdPid, startLibvirtTestEnv, TestEnvError } from '../src/index.js';
import { isAlive } from '../src/processes.js';

describe('restartLibvirtd', () => {
  let env: LibvirtTestEnv;

  beforeAll(async () => {
    env = await startLibvirtTestEnv();
  });
  afterAll(async () => {
    await env?.teardown();
  });

  it('refuses while another env of this process is alive', async () => {
    const other = await startLibvirtTestEnv();
    try {
      const err = await env.restartLibvirtd().catch((e: unknown) => e);
      expect(TestEnvError.isInstance(err)).toBe(true);
      expect((err as TestEnvError).code).toBe('INVALID_ARGUMENT');
      expect((err as Error).message).toMatch(/1 other live test env/);
    } finally {
      await other.teardown();
    }
  });

  it('replaces the daemon, cuts open connections and comes back with the pool active', async () => {
    const before = libvirtdPid();
    expect(before).toBeDefined();
    const sock = connect(env.socketPath);
    await new Promise<void>((r, j) => {
      sock.once('connect', () => r());
      sock.once('error', j);
    });
    const closed = new Promise<void>((r) => sock.once('close', () => r()));
    sock.on('error', () => undefined);

    await env.restartLibvirtd();

    await closed;
    const after = libvirtdPid();
    expect(after).toBeDefined();
    expect(after).not.toBe(before);
    expect(isAlive(before!)).toBe(false);
    expect((await env.virsh('hostname')).trim()).toBe(hostname());
    expect(await env.virsh('pool-info', env.pool.name)).toMatch(/State:\s+running/);
  }, 120_000);
});
