import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureLibvirtd, restartLibvirtd as restartDaemon } from './daemons.js';
import { TestEnvError } from './errors.js';
import { acquireExclusiveUse, acquireUse } from './exclusive-use.js';
import type { HeldLock } from './file-lock.js';
import { cleanupStalePools, createPool, type TestPool } from './pool.js';
import { generateKeyPair, knownHostsPattern, stripComment } from './ssh-keys.js';
import { type SshEndpoint, type StartSshdOptions, startSshd } from './sshd.js';
import { SYSTEM_URI, virsh } from './virsh.js';

export interface LibvirtTestEnv {
  uri: 'qemu:///system';
  /** libvirtd's unix socket on this machine, which is also "the remote host" behind the sshd. */
  socketPath: string;
  /** The env's temp dir (pool, sshd config, keys, logs); removed by teardown. */
  baseDir: string;
  pool: TestPool;
  /** sshd with streamlocal forwarding allowed. */
  ssh: SshEndpoint;
  /** A key pair that is NOT in any authorized_keys. */
  otherUserKey: { privateKey: Buffer; privateKeyPath: string; publicKey: string };
  /** known_hosts naming `[127.0.0.1]:<ssh.port>` with a different host key. */
  wrongKnownHosts: string;
  wrongKnownHostsPath: string;
  /** Another sshd (own port, own keys), stopped by teardown if not stopped before. */
  startSshd(opts?: Omit<StartSshdOptions, 'dir'>): Promise<SshEndpoint>;
  /** Another pool, destroyed by teardown if not destroyed before. */
  createPool(opts?: { name?: string; capacityBytes?: number; signal?: AbortSignal }): Promise<TestPool>;
  /** A pool on a tmpfs of `bytes` bytes, for out-of-space tests. */
  createSmallPool(bytes: number, opts?: { signal?: AbortSignal }): Promise<TestPool>;
  /**
   * Restarts libvirtd. Waits until no other env on the machine is alive (they hold the daemon in
   * shared use), so it never cuts another suite's connections; fails at once if this process has
   * other live envs, which would otherwise wait forever.
   */
  restartLibvirtd(opts?: { signal?: AbortSignal; waitTimeoutMs?: number }): Promise<void>;
  virsh(...args: string[]): Promise<string>;
  teardown(): Promise<void>;
}

const liveEnvs = new Set<object>();

/**
 * Starts (or reuses) libvirtd, makes a fresh directory pool and a private sshd through which
 * libvirtd's socket is reachable with streamlocal forwarding.
 */
export async function startLibvirtTestEnv(opts: { signal?: AbortSignal } = {}): Promise<LibvirtTestEnv> {
  const { signal } = opts;
  let use: HeldLock | undefined = await acquireUse(signal);
  const baseDir = mkdtempSync(join(tmpdir(), 'ep-testenv-'));
  // QEMU (an unprivileged user) must traverse this dir to reach volumes in the pool below it.
  chmodSync(baseDir, 0o711);
  const pools = new Set<TestPool>();
  const sshds = new Set<SshEndpoint>();
  const token = {};
  let torn: Promise<void> | undefined;

  const teardown = () => {
    torn ??= (async () => {
      const problems: string[] = [];
      const settle = async (what: string, p: Promise<unknown>) => {
        try {
          await p;
        } catch (e) {
          problems.push(`${what}: ${(e as Error).message}`);
        }
      };
      await Promise.all([...sshds].map((s) => settle(`sshd :${s.port}`, s.stop())));
      for (const p of pools) await settle(`pool ${p.name}`, p.destroy());
      rmSync(baseDir, { recursive: true, force: true });
      liveEnvs.delete(token);
      await use?.release();
      use = undefined;
      if (problems.length > 0) {
        throw new TestEnvError('TEARDOWN_FAILED', `teardown finished with problems: ${problems.join('; ')}`);
      }
    })();
    return torn;
  };

  const trackPool = (p: TestPool): TestPool => {
    pools.add(p);
    const destroy = p.destroy;
    return Object.assign(p, {
      destroy: async () => {
        await destroy();
        pools.delete(p);
      },
    });
  };
  const trackSshd = (s: SshEndpoint): SshEndpoint => {
    sshds.add(s);
    const stop = s.stop;
    return Object.assign(s, {
      stop: async () => {
        await stop();
        sshds.delete(s);
      },
    });
  };
  let extraSshd = 0;

  try {
    const { socketPath } = await ensureLibvirtd({ signal });
    await cleanupStalePools({ signal }).catch(() => undefined);
    const keysDir = join(baseDir, 'keys');
    mkdirSync(keysDir, { mode: 0o700 });
    const [pool, ssh, otherUser, wrongHost] = await Promise.all([
      createPool({ parentDir: baseDir, signal }).then(trackPool),
      startSshd({ dir: join(baseDir, 'ssh'), signal }).then(trackSshd),
      generateKeyPair(keysDir, 'other_user_ed25519', signal),
      generateKeyPair(keysDir, 'wrong_host_ed25519', signal),
    ]);
    const wrongKnownHosts = `${knownHostsPattern(ssh.host, ssh.port)} ${stripComment(wrongHost.publicKey)}\n`;
    const wrongKnownHostsPath = join(keysDir, 'wrong_known_hosts');
    writeFileSync(wrongKnownHostsPath, wrongKnownHosts);
    liveEnvs.add(token);

    const env: LibvirtTestEnv = {
      uri: SYSTEM_URI,
      socketPath,
      baseDir,
      pool,
      ssh,
      otherUserKey: {
        privateKey: otherUser.privateKey,
        privateKeyPath: otherUser.privateKeyPath,
        publicKey: otherUser.publicKey,
      },
      wrongKnownHosts,
      wrongKnownHostsPath,
      startSshd: async (o = {}) => {
        if (torn) throw new TestEnvError('INVALID_ARGUMENT', 'this test env was torn down');
        extraSshd += 1;
        return trackSshd(await startSshd({ ...o, dir: join(baseDir, `ssh-${extraSshd}`) }));
      },
      createPool: async (o = {}) => {
        if (torn) throw new TestEnvError('INVALID_ARGUMENT', 'this test env was torn down');
        return trackPool(await createPool({ ...o, parentDir: baseDir }));
      },
      createSmallPool: (bytes, o = {}) => env.createPool({ capacityBytes: bytes, ...o }),
      restartLibvirtd: async (o = {}) => {
        if (liveEnvs.size > 1) {
          throw new TestEnvError(
            'INVALID_ARGUMENT',
            `restartLibvirtd needs exclusive use of libvirtd, but this process has ${liveEnvs.size - 1} other live test env(s); tear them down first`,
          );
        }
        if (torn) throw new TestEnvError('INVALID_ARGUMENT', 'this test env was torn down');
        // Our own shared hold would block the exclusive one; give it up for the restart.
        await use?.release();
        use = undefined;
        try {
          const exclusive = await acquireExclusiveUse(o.signal, o.waitTimeoutMs);
          try {
            await restartDaemon({ signal: o.signal });
          } finally {
            await exclusive.release();
          }
        } finally {
          use = await acquireUse();
        }
      },
      virsh: (...args) => virsh(args),
      teardown,
    };
    return env;
  } catch (e) {
    await teardown().catch(() => undefined);
    throw e;
  }
}
