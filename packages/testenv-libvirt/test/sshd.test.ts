import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { run } from '../src/exec.js';
import { ensurePackages, startSshd, TestEnvError } from '../src/index.js';
import { isAlive } from '../src/processes.js';
import { generateKeyPair } from '../src/ssh-keys.js';
import { sshRun } from './ssh-cli.js';

describe('startSshd on its own', () => {
  it('serves key logins as root and cleans up after itself', async () => {
    await ensurePackages();
    const ep = await startSshd();
    try {
      expect(ep.host).toBe('127.0.0.1');
      expect(ep.username).toBe('root');
      expect(ep.hostPublicKey).toMatch(/^ssh-ed25519 AAAA[\w+/=]+$/);
      const cfg = readFileSync(ep.configPath, 'utf8');
      for (const line of [
        'ListenAddress 127.0.0.1',
        'PasswordAuthentication no',
        'KbdInteractiveAuthentication no',
        'UsePAM no',
        'AllowStreamLocalForwarding yes',
        'StrictModes no',
        'LogLevel VERBOSE',
        'PermitRootLogin prohibit-password',
      ]) {
        expect(cfg).toContain(`${line}\n`);
      }
      expect((await sshRun(ep)).code).toBe(0);
      expect(readFileSync(ep.logPath, 'utf8')).toContain('Accepted publickey for root');
      // The hashed entry really is for [127.0.0.1]:port: ssh-keygen -F finds it by name.
      const found = await run('ssh-keygen', ['-F', `[127.0.0.1]:${ep.port}`, '-f', ep.hashedKnownHostsPath]);
      expect(found.code).toBe(0);
      expect(found.stdout).toContain(ep.hostPublicKey);
    } finally {
      await ep.stop();
    }
    expect(existsSync(ep.configPath)).toBe(false);
    expect(isAlive(ep.pid)).toBe(false);
    await ep.stop();
  });

  it('comes back on the same port with the same keys, so known_hosts stays valid', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ep-sshd-keys-'));
    const hostKey = await generateKeyPair(dir, 'kept_host');
    const userKey = await generateKeyPair(dir, 'kept_user');
    const a = await startSshd({ hostKey, userKey });
    const port = a.port;
    const known = a.knownHosts;
    await a.stop();
    const b = await startSshd({ hostKey, userKey, port });
    try {
      expect(b.port).toBe(port);
      expect(b.knownHosts).toBe(known);
      expect((await sshRun(b)).code).toBe(0);
    } finally {
      await b.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('names bad options and stops at once when aborted', async () => {
    await expect(startSshd({ port: 70000 })).rejects.toThrow(/70000/);
    const bad = startSshd({ allowTcpForwarding: 'sometimes' as never });
    await expect(bad).rejects.toSatisfy(
      (e: unknown) => TestEnvError.isInstance(e) && e.code === 'INVALID_ARGUMENT',
    );
    const ctl = new AbortController();
    const reason = new Error('abort sshd');
    ctl.abort(reason);
    await expect(startSshd({ signal: ctl.signal })).rejects.toBe(reason);
  });
});
