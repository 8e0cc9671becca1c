import { type LibvirtTestEnv, startLibvirtTestEnv } from '@egress-proxies/testenv-libvirt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  connectSsh,
  type HostKeyInfo,
  SSH_CIPHERS,
  SshAuthenticationError,
  SshForwardingRefusedError,
  type SshHandshakeInfo,
  SshHostKeyMismatchError,
  type SshOptions,
  SshSocketNotFoundError,
  SshUnknownHostKeyError,
  TransportError,
} from '../src/index.js';
import { defineIntegrationCases } from './integration-cases.js';

let env: LibvirtTestEnv;
beforeAll(async () => {
  env = await startLibvirtTestEnv();
});
afterAll(async () => {
  await env?.teardown();
});

function sshOptions(over: Partial<SshOptions> = {}): SshOptions {
  const { ssh } = env;
  return {
    host: ssh.host,
    port: ssh.port,
    username: ssh.username,
    privateKey: ssh.privateKey,
    knownHostsPath: ssh.knownHostsPath,
    socketPath: env.socketPath,
    uri: env.uri,
    timeoutMs: 60_000,
    ...over,
  };
}

/** No part of a private key may leak into an error. */
function expectNoKeyMaterial(err: Error, key: Buffer): void {
  const body = key
    .toString('utf8')
    .split('\n')
    .filter((l) => l && !l.startsWith('-----'))
    .join('');
  const text = `${err.message} ${String(err.stack)} ${JSON.stringify(err)} ${String((err as { cause?: unknown }).cause ?? '')}`;
  for (let i = 0; i + 16 <= body.length; i += 16) expect(text).not.toContain(body.slice(i, i + 16));
}

describe('libvirtd over ssh (direct-streamlocal)', () => {
  defineIntegrationCases({ env: () => env, connect: () => connectSsh(sshOptions({ keepalive: true })) });

  it('accepts a hashed known_hosts entry', async () => {
    expect(env.ssh.hashedKnownHosts.startsWith('|1|')).toBe(true);
    const c = await connectSsh(
      sshOptions({ knownHostsPath: undefined, knownHosts: env.ssh.hashedKnownHosts }),
    );
    expect(await c.connectGetLibVersion()).toBeGreaterThanOrEqual(9_000_000);
    await c.close();
  });

  it('rejects a host that is not in known_hosts', async () => {
    const other = env.ssh.knownHosts.replace(`]:${env.ssh.port} `, `]:${env.ssh.port + 1} `);
    expect(other).not.toBe(env.ssh.knownHosts);
    const err = await connectSsh(sshOptions({ knownHostsPath: undefined, knownHosts: other })).catch(
      (e) => e,
    );
    expect(SshUnknownHostKeyError.isInstance(err)).toBe(true);
    expect(err.message).toContain(`[${env.ssh.host}]:${env.ssh.port} is not in`);
  });

  it('rejects a host whose key does not match known_hosts, naming host and file', async () => {
    const err = await connectSsh(sshOptions({ knownHostsPath: env.wrongKnownHostsPath })).catch((e) => e);
    expect(SshHostKeyMismatchError.isInstance(err)).toBe(true);
    expect(err.message).toContain(`[${env.ssh.host}]:${env.ssh.port}`);
    expect(err.message).toContain(env.wrongKnownHostsPath);
  });

  it('passes public key data to a custom hostVerifier and honours its verdict', async () => {
    const seen: HostKeyInfo[] = [];
    const err = await connectSsh(
      sshOptions({
        knownHostsPath: undefined,
        hostVerifier: (k) => {
          seen.push(k);
          return false;
        },
      }),
    ).catch((e) => e);
    expect(SshHostKeyMismatchError.isInstance(err)).toBe(true);
    expect(seen[0]?.type).toBe('ssh-ed25519');
    expect(env.ssh.hostPublicKey).toContain(seen[0]?.key.toString('base64'));
    const c = await connectSsh(sshOptions({ knownHostsPath: undefined, hostVerifier: () => true }));
    await c.close();
  });

  it('rejects a user key the server does not accept, without leaking it', async () => {
    const err = await connectSsh(sshOptions({ privateKey: env.otherUserKey.privateKey })).catch((e) => e);
    expect(SshAuthenticationError.isInstance(err)).toBe(true);
    expect(err.message).toMatch(/refused the private key for user root/);
    expectNoKeyMaterial(err, env.otherUserKey.privateKey);
  });

  it('reports an unusable private key without echoing it', async () => {
    const garbage = Buffer.from(
      '-----BEGIN OPENSSH PRIVATE KEY-----\nc2VjcmV0LWtleS1tYXRlcmlhbC1zaG91bGQtbm90LWxlYWs=\n-----END OPENSSH PRIVATE KEY-----\n',
    );
    const err = await connectSsh(sshOptions({ privateKey: garbage })).catch((e) => e);
    expect(SshAuthenticationError.isInstance(err)).toBe(true);
    expectNoKeyMaterial(err, garbage);
  });

  it('reports streamlocal forwarding disabled, naming both sshd settings', async () => {
    const sshd = await env.startSshd({ allowStreamLocalForwarding: false });
    try {
      const err = await connectSsh(
        sshOptions({ port: sshd.port, privateKey: sshd.privateKey, knownHostsPath: sshd.knownHostsPath }),
      ).catch((e) => e);
      expect(SshForwardingRefusedError.isInstance(err)).toBe(true);
      expect(err.message).toMatch(/AllowStreamLocalForwarding/);
      expect(err.message).toMatch(/AllowTcpForwarding/);
    } finally {
      await sshd.stop();
    }
  });

  it('reports AllowTcpForwarding no as refused forwarding too', async () => {
    const sshd = await env.startSshd({ allowTcpForwarding: 'no' });
    try {
      const err = await connectSsh(
        sshOptions({ port: sshd.port, privateKey: sshd.privateKey, knownHostsPath: sshd.knownHostsPath }),
      ).catch((e) => e);
      expect(SshForwardingRefusedError.isInstance(err)).toBe(true);
    } finally {
      await sshd.stop();
    }
  });

  it('reports a socket missing on the host', async () => {
    const err = await connectSsh(sshOptions({ socketPath: `${env.baseDir}/no-such-libvirt-sock` })).catch(
      (e) => e,
    );
    expect(SshSocketNotFoundError.isInstance(err)).toBe(true);
    expect(err.message).toContain('no-such-libvirt-sock does not exist');
  });

  it('ends the ssh session when the client closes', async () => {
    const c = await connectSsh(sshOptions());
    await c.close();
    expect(c.isOpen).toBe(false);
  });

  it('offers the AES-GCM ciphers first and settles on aes128-gcm with a stock sshd', async () => {
    expect(SSH_CIPHERS.slice(0, 2)).toEqual(['aes128-gcm@openssh.com', 'aes256-gcm@openssh.com']);
    let info: SshHandshakeInfo | undefined;
    const c = await connectSsh(sshOptions({ onHandshake: (i) => (info = i) }));
    await c.close();
    expect(info).toMatchObject({
      cipherOut: 'aes128-gcm@openssh.com',
      cipherIn: 'aes128-gcm@openssh.com',
      hostKey: 'ssh-ed25519',
    });
  });

  it('offers only the ciphers the caller lists', async () => {
    let info: SshHandshakeInfo | undefined;
    const c = await connectSsh(sshOptions({ ciphers: ['aes256-ctr'], onHandshake: (i) => (info = i) }));
    expect(await c.connectGetLibVersion()).toBeGreaterThanOrEqual(9_000_000);
    await c.close();
    expect(info?.cipherOut).toBe('aes256-ctr');
  });

  it('rejects an empty or unknown cipher list with a TransportError naming it', async () => {
    const empty = await connectSsh(sshOptions({ ciphers: [] })).catch((e) => e);
    expect(TransportError.isInstance(empty)).toBe(true);
    expect(empty.message).toContain('invalid ssh ciphers []');
    const unknown = await connectSsh(sshOptions({ ciphers: ['rot13'] })).catch((e) => e);
    expect(TransportError.isInstance(unknown)).toBe(true);
    expect(SshAuthenticationError.isInstance(unknown)).toBe(false);
    expect(unknown.message).toContain('rot13');
  });

  it('nudges ACKs while pipelined calls are in flight, unless told not to', async () => {
    const burst = async (c: Awaited<ReturnType<typeof connectSsh>>) => {
      const names = await Promise.all(Array.from({ length: 200 }, () => c.connectGetHostname()));
      expect(new Set(names).size).toBe(1);
    };
    const on = await connectSsh(sshOptions());
    await burst(on);
    // sshd's replies arrive over many reads while later calls are still queued in libvirtd.
    expect(on.connection.ackNudges).toBeGreaterThan(0);
    await on.close();
    const off = await connectSsh(sshOptions({ promptAcks: false }));
    await burst(off);
    expect(off.connection.ackNudges).toBe(0);
    await off.close();
  });

  it('reports a refused TCP connection as a TransportError naming the target', async () => {
    const sshd = await env.startSshd();
    const { port, knownHostsPath, privateKey } = sshd;
    await sshd.stop();
    const err = await connectSsh(sshOptions({ port, knownHostsPath, privateKey })).catch((e) => e);
    expect(TransportError.isInstance(err)).toBe(true);
    expect(err.message).toContain(`root@127.0.0.1:${port}`);
    expect(err.message).toMatch(/ECONNREFUSED/);
  });
});
