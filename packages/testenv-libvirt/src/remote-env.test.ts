import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { remoteHostFromEnv, startRemoteLibvirtTestEnv, REMOTE_ENV_VARS as V } from './remote-env.js';

const dir = mkdtempSync(join(tmpdir(), 'ep-remote-vars-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const key = join(dir, 'id');
const kh = join(dir, 'known_hosts');
writeFileSync(key, 'k');
writeFileSync(kh, 'h');
const good = {
  [V.ssh]: 'virt@nas1.home.lan:2222',
  [V.key]: key,
  [V.knownHosts]: kh,
  [V.pool]: 'ep-test-mine',
  [V.bridge]: 'br0',
};

describe('the real suites on your own hypervisor (environment variables)', () => {
  it('is off unless the SSH variable is set', () => {
    expect(remoteHostFromEnv({})).toBeUndefined();
  });

  it('reads the host, the key, known_hosts, the pool and the bridge', () => {
    expect(remoteHostFromEnv(good)).toEqual({
      host: 'nas1.home.lan',
      port: 2222,
      username: 'virt',
      privateKeyPath: key,
      knownHostsPath: kh,
      pool: 'ep-test-mine',
      bridge: 'br0',
      socketPath: '/var/run/libvirt/libvirt-sock',
    });
    expect(remoteHostFromEnv({ ...good, [V.ssh]: 'virt@[fd00::5]' })).toMatchObject({
      host: 'fd00::5',
      port: 22,
    });
  });

  it('refuses CI, a pool not made for the tests, and every bad or missing value, naming the variable', () => {
    const cases: [NodeJS.ProcessEnv, string][] = [
      [{ ...good, CI: 'true' }, `${V.ssh} is set while CI is set`],
      [
        { ...good, [V.pool]: 'default' },
        `${V.pool}: expected a pool made for the tests, named ep-test-..., got "default"`,
      ],
      [{ ...good, [V.ssh]: 'nas1' }, `${V.ssh}: expected user@host[:port], got "nas1"`],
      [{ ...good, [V.bridge]: undefined }, `${V.bridge} is required with ${V.ssh}`],
      [{ ...good, [V.key]: join(dir, 'missing') }, `${V.key}: cannot read "${join(dir, 'missing')}"`],
      [{ ...good, [V.ssh]: 'virt@h:70000' }, `${V.ssh}: port 70000 is out of range`],
    ];
    for (const [env, message] of cases) expect(() => remoteHostFromEnv(env), message).toThrow(message);
  });

  it('fails at the start, naming the host, when it cannot reach it', async () => {
    const settings = remoteHostFromEnv({ ...good, [V.ssh]: 'virt@127.0.0.1:1' });
    await expect(startRemoteLibvirtTestEnv(settings)).rejects.toThrow(
      'the test host virt@127.0.0.1:1 or its pool ep-test-mine is not usable',
    );
  });

  it('leaves no directory of generated keys behind when the start fails', async () => {
    const ours = () => new Set(readdirSync(tmpdir()).filter((n) => n.startsWith('ep-remote-env-')));
    const before = ours();
    const settings = remoteHostFromEnv({ ...good, [V.ssh]: 'virt@127.0.0.1:1' });
    await expect(startRemoteLibvirtTestEnv(settings)).rejects.toThrow('is not usable');
    expect([...ours()].filter((n) => !before.has(n))).toEqual([]);
  });
});
