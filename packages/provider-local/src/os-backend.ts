import {
  access,
  chmod,
  chown,
  mkdir,
  open,
  readdir,
  readFile,
  readlink,
  rename,
  rm,
  stat,
  unlink,
  writeFile,
} from 'node:fs/promises';
import { createRequire } from 'node:module';
import { delimiter, dirname, join } from 'node:path';
import { raceAbort, throwIfAborted } from '@egress-proxies/provider-utils';
import type { LocalBackend, ProcessInfo, Spawned, SpawnSpec, UserIds } from './backend.js';
import { nodeRunnerPath } from './engines/node.js';
import { errnoOf } from './errors.js';
import { isValidName } from './id.js';
import { statePaths } from './paths.js';
import { isLiveState, parseListeners, parseProcStat } from './proc.js';

// child_process, crypto, fs and net are fetched on use: importing the package loads none of them
// (an ESM import of any of them loads node:stream too).
const childProcess = () => process.getBuiltinModule('node:child_process');
const randomHex = (bytes: number) =>
  process.getBuiltinModule('node:crypto').randomBytes(bytes).toString('hex');
const fsConstants = () => process.getBuiltinModule('node:fs').constants;
const net = () => process.getBuiltinModule('node:net');

const PROBE_CONNECT_MS = 1_000;
const VERSION_TIMEOUT_MS = 5_000;
const SBIN = ['/usr/sbin', '/usr/local/sbin', '/sbin'];

async function readProcStat(pid: number): Promise<{ state: string; startTime: string } | undefined> {
  try {
    return parseProcStat(await readFile(`/proc/${pid}/stat`, 'utf8'));
  } catch (err) {
    if (errnoOf(err) === 'ENOENT' || errnoOf(err) === 'ESRCH') return undefined;
    throw err;
  }
}

/**
 * Ports `pid` listens on through its own sockets; `gone` when the process vanished while being
 * read, undefined when /proc does not let us tell (another user's process without privileges).
 */
async function readListenPorts(pid: number): Promise<number[] | 'gone' | undefined> {
  try {
    const byInode = new Map<string, number>();
    for (const table of ['tcp', 'tcp6']) {
      const text = await readFile(`/proc/${pid}/net/${table}`, 'utf8').catch((err: unknown) => {
        if (errnoOf(err) === 'ENOENT' && table === 'tcp6') return ''; // no IPv6 on this host
        throw err;
      });
      for (const l of parseListeners(text)) byInode.set(l.inode, l.port);
    }
    const ports = new Set<number>();
    for (const fd of await readdir(`/proc/${pid}/fd`)) {
      const target = await readlink(`/proc/${pid}/fd/${fd}`).catch(() => '');
      const m = /^socket:\[(\d+)\]$/.exec(target);
      const port = m ? byInode.get(m[1] as string) : undefined;
      if (port !== undefined) ports.add(port);
    }
    return [...ports].sort((a, b) => a - b);
  } catch (err) {
    const errno = errnoOf(err);
    if (errno === 'EACCES' || errno === 'EPERM') return undefined;
    if (errno === 'ENOENT' || errno === 'ESRCH') return 'gone';
    throw err;
  }
}

/** Whether a process with this pid exists (another user's counts). */
function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return errnoOf(err) === 'EPERM';
  }
}

/** The production backend: the real file system, /proc, signals and sockets of this host. */
export function createOsBackend(stateDir: string): LocalBackend {
  const paths = statePaths(stateDir);

  const ensureDirs = async () => {
    await mkdir(paths.instancesDir, { recursive: true });
    await mkdir(paths.runtimeRoot, { recursive: true });
  };

  return {
    async readState(signal, name) {
      try {
        return await readFile(paths.stateFile(name), { encoding: 'utf8', ...(signal ? { signal } : {}) });
      } catch (err) {
        if (errnoOf(err) === 'ENOENT') return undefined;
        throw err;
      }
    },

    async writeState(signal, name, text) {
      throwIfAborted(signal);
      await mkdir(paths.instancesDir, { recursive: true });
      const file = paths.stateFile(name);
      const tmp = `${file}.tmp-${process.pid}-${randomHex(4)}`;
      try {
        await writeFile(tmp, text, { mode: 0o644, ...(signal ? { signal } : {}) });
        await rename(tmp, file);
      } catch (err) {
        await unlink(tmp).catch(() => {});
        throw err;
      }
    },

    async removeState(signal, name) {
      throwIfAborted(signal);
      await rm(paths.stateFile(name), { force: true });
    },

    async listStates(signal) {
      throwIfAborted(signal);
      let entries: string[];
      try {
        entries = await readdir(paths.instancesDir);
      } catch (err) {
        if (errnoOf(err) === 'ENOENT') return [];
        throw err;
      }
      return entries
        .filter((f) => f.endsWith('.json'))
        .map((f) => f.slice(0, -'.json'.length))
        .filter(isValidName)
        .sort();
    },

    async writeRuntime(signal, name, files, owner) {
      throwIfAborted(signal);
      await ensureDirs();
      const dir = paths.runtimeDir(name);
      await mkdir(dir, { recursive: true, mode: 0o755 });
      for (const [file, text] of Object.entries(files)) {
        throwIfAborted(signal);
        await writeFile(join(dir, file), text, { mode: 0o644 });
      }
      if (owner) {
        // The dropped-privilege Squid must reach and write its runtime directory: search (not
        // read) permission on the parents, ownership of its own directory.
        for (const parent of [paths.stateDir, paths.runtimeRoot]) {
          const mode = (await stat(parent)).mode & 0o7777;
          if ((mode & 0o011) !== 0o011) await chmod(parent, mode | 0o011);
        }
        await chown(dir, owner.uid, owner.gid);
      }
      return dir;
    },

    async removeRuntime(signal, name) {
      throwIfAborted(signal);
      await rm(paths.runtimeDir(name), { recursive: true, force: true });
    },

    async listRuntime(signal) {
      throwIfAborted(signal);
      try {
        const entries = await readdir(paths.runtimeRoot, { withFileTypes: true });
        return entries
          .filter((e) => e.isDirectory() && isValidName(e.name))
          .map((e) => e.name)
          .sort();
      } catch (err) {
        if (errnoOf(err) === 'ENOENT') return [];
        throw err;
      }
    },

    async spawn(signal, spec: SpawnSpec): Promise<Spawned> {
      throwIfAborted(signal);
      const out = await open(join(spec.runtimeDir, 'stdout.log'), 'a', 0o644);
      const errLog = await open(join(spec.runtimeDir, 'stderr.log'), 'a', 0o644);
      try {
        // Detached in its own session: the proxy outlives this process (a Ctrl-C of the operator
        // leaves it running) and a later delete, from any process, stops it by pid.
        const child = childProcess().spawn(spec.command, [...spec.args], {
          cwd: spec.runtimeDir,
          detached: true,
          stdio: ['ignore', out.fd, errLog.fd],
        });
        await new Promise<void>((resolve, reject) => {
          child.once('spawn', resolve);
          child.once('error', reject);
        });
        child.unref();
        const pid = child.pid as number;
        const st = await readProcStat(pid);
        // An instant exit leaves no stat; "0" never matches a live process, so it reads as exited.
        return { pid, startTime: st?.startTime ?? '0' };
      } finally {
        await out.close();
        await errLog.close();
      }
    },

    async inspect(signal, pid): Promise<ProcessInfo> {
      throwIfAborted(signal);
      const st = await readProcStat(pid);
      if (!st || !isLiveState(st.state)) return { alive: false };
      let cmdline: string[] = [];
      try {
        cmdline = (await readFile(`/proc/${pid}/cmdline`, 'utf8')).split('\0').filter(Boolean);
      } catch (err) {
        if (errnoOf(err) === 'ENOENT' || errnoOf(err) === 'ESRCH') return { alive: false };
        throw err;
      }
      const listenPorts = await readListenPorts(pid);
      // A process that exits while its sockets are read must not fall back to "cannot tell":
      // the port probe alone would then credit it with whatever else answers on the port.
      if (listenPorts === 'gone') return { alive: false };
      return { alive: true, startTime: st.startTime, cmdline, ...(listenPorts ? { listenPorts } : {}) };
    },

    async kill(signal, pid, sig) {
      throwIfAborted(signal);
      try {
        process.kill(pid, sig);
      } catch (err) {
        if (errnoOf(err) !== 'ESRCH') throw err;
      }
    },

    async probePort(signal, host, port) {
      throwIfAborted(signal);
      const attempt = new Promise<boolean>((resolve) => {
        const socket = net().connect({ host, port, timeout: PROBE_CONNECT_MS });
        const done = (ok: boolean) => {
          socket.destroy();
          signal?.removeEventListener('abort', onAbort);
          resolve(ok);
        };
        const onAbort = () => done(false);
        signal?.addEventListener('abort', onAbort, { once: true });
        socket.once('connect', () => done(true));
        socket.once('timeout', () => done(false));
        socket.once('error', () => done(false));
      });
      return raceAbort(attempt, signal);
    },

    async portFree(signal, host, port) {
      throwIfAborted(signal);
      const attempt = new Promise<boolean>((resolve, reject) => {
        const server = net().createServer();
        server.once('error', (err) => {
          if (errnoOf(err) === 'EADDRINUSE' || errnoOf(err) === 'EACCES') resolve(false);
          else reject(err);
        });
        server.listen({ host, port, exclusive: true }, () => server.close(() => resolve(true)));
      });
      return raceAbort(attempt, signal);
    },

    async probeStateDir(signal) {
      throwIfAborted(signal);
      await ensureDirs();
      // A process killed between writing and renaming (or removing) one of these leaves it
      // behind; each name carries its writer's pid, so those of dead writers go here.
      for (const f of await readdir(paths.instancesDir)) {
        const pid = /^(?:\.probe-|.+\.json\.tmp-)(\d+)-[0-9a-f]+$/.exec(f)?.[1];
        if (pid && !pidAlive(Number(pid))) await unlink(join(paths.instancesDir, f)).catch(() => {});
      }
      const probe = join(paths.instancesDir, `.probe-${process.pid}-${randomHex(4)}`);
      await writeFile(probe, 'probe\n', signal ? { signal } : {});
      await unlink(probe);
    },

    async findSquid(signal, configured) {
      throwIfAborted(signal);
      const candidates = configured
        ? [configured]
        : [...(process.env.PATH ?? '').split(delimiter).filter(Boolean), ...SBIN].map((d) =>
            join(d, 'squid'),
          );
      for (const c of candidates) {
        try {
          await access(c, fsConstants().X_OK);
          return c;
        } catch {
          // not here; try the next one
        }
      }
      return undefined;
    },

    async engineVersion(signal, engine, squidPath) {
      throwIfAborted(signal);
      if (engine === 'squid') {
        if (!squidPath) throw Object.assign(new Error('squid not found'), { code: 'ENOENT' });
        const stdout = await new Promise<string>((resolve, reject) => {
          childProcess().execFile(
            squidPath,
            ['-v'],
            { timeout: VERSION_TIMEOUT_MS, ...(signal ? { signal } : {}) },
            (err, out) => (err ? reject(err) : resolve(String(out))),
          );
        });
        const m = /Version\s+(\S+)/.exec(stdout);
        return m?.[1] ?? stdout.split('\n')[0]?.trim() ?? 'unknown';
      }
      await access(nodeRunnerPath(), fsConstants().R_OK);
      const entry = createRequire(import.meta.url).resolve('proxy-chain');
      const pkg = JSON.parse(await readFile(join(dirname(dirname(entry)), 'package.json'), 'utf8')) as {
        version?: string;
      };
      return `node ${process.version}, proxy-chain ${pkg.version ?? 'unknown'}`;
    },

    async findProcesses(signal, argPrefix) {
      throwIfAborted(signal);
      const found: number[] = [];
      for (const entry of await readdir('/proc')) {
        if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
        const cmdline = await readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '');
        if (!cmdline.split('\0').some((arg) => arg.startsWith(argPrefix))) continue;
        const st = await readProcStat(Number(entry));
        if (st && isLiveState(st.state)) found.push(Number(entry));
      }
      return found.sort((a, b) => a - b);
    },

    async tailLog(signal, name, file, bytes) {
      throwIfAborted(signal);
      let handle: Awaited<ReturnType<typeof open>> | undefined;
      try {
        handle = await open(join(paths.runtimeDir(name), file), 'r');
        const size = (await handle.stat()).size;
        const length = Math.min(size, bytes);
        const buf = Buffer.alloc(length);
        await handle.read(buf, 0, length, size - length);
        return buf.toString('utf8');
      } catch (err) {
        if (errnoOf(err) === 'ENOENT') return undefined;
        throw err;
      } finally {
        await handle?.close();
      }
    },

    async userIds(signal, user) {
      throwIfAborted(signal);
      const passwd = await readFile('/etc/passwd', 'utf8');
      for (const line of passwd.split('\n')) {
        const f = line.split(':');
        if (f[0] === user && f[2] && f[3]) return { uid: Number(f[2]), gid: Number(f[3]) };
      }
      return undefined;
    },
  } satisfies LocalBackend;
}

export type { UserIds };
