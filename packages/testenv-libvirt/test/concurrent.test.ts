import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { startLibvirtTestEnv } from '../src/index.js';
import { sshRun } from './ssh-cli.js';

describe('concurrent envs in one process', () => {
  it('do not clash', async () => {
    const [a, b] = await Promise.all([startLibvirtTestEnv(), startLibvirtTestEnv()]);
    try {
      expect(a.pool.name).not.toBe(b.pool.name);
      expect(a.pool.path).not.toBe(b.pool.path);
      expect(a.baseDir).not.toBe(b.baseDir);
      expect(a.ssh.port).not.toBe(b.ssh.port);
      expect(a.ssh.hostPublicKey).not.toBe(b.ssh.hostPublicKey);
      for (const env of [a, b]) {
        expect(await env.virsh('pool-info', env.pool.name)).toMatch(/State:\s+running/);
        expect((await sshRun(env.ssh)).code).toBe(0);
      }
      // Each sshd trusts only its own env's user key.
      const cross = await sshRun(a.ssh, { keyPath: b.ssh.privateKeyPath });
      expect(cross.code).toBe(255);
    } finally {
      await Promise.all([a.teardown(), b.teardown()]);
    }
    for (const env of [a, b]) {
      expect(existsSync(env.baseDir)).toBe(false);
      expect(await env.virsh('pool-list', '--all', '--name').then((s) => s.includes(env.pool.name))).toBe(
        false,
      );
    }
  }, 120_000);

  it('an aborted start rejects with the abort reason', async () => {
    const ctl = new AbortController();
    const reason = new Error('cancelled by test');
    ctl.abort(reason);
    await expect(startLibvirtTestEnv({ signal: ctl.signal })).rejects.toBe(reason);
  });
});
