import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Transform } from 'node:stream';
import { promisify } from 'node:util';
import type { KvmConfigInput } from '../config.js';

const run = promisify(execFile);

/** A tiny qcow2 made by `qemu-img create` (a real image header; the guest need not boot). */
export async function makeQcow2(
  path: string,
  virtualSize = '64M',
  dataMiB = 0,
): Promise<{ path: string; bytes: number; sha256: string }> {
  await run('qemu-img', ['create', '-q', '-f', 'qcow2', path, virtualSize]);
  // Written clusters make the file that big, for transfers worth measuring or cutting.
  if (dataMiB > 0) await run('qemu-io', ['-c', `write -P 0xab 0 ${dataMiB}M`, path]);
  const data = readFileSync(path);
  return { path, bytes: data.length, sha256: createHash('sha256').update(data).digest('hex') };
}

export interface ImageServer {
  /** `http://127.0.0.1:<port>` */
  base: string;
  /** Requests served, by path. */
  hits: Map<string, number>;
  close(): Promise<void>;
}

/**
 * Serves files on 127.0.0.1: `/<name>` with a Content-Length, `/chunked/<name>` without one
 * (chunked encoding), `/slow/<name>` throttled to `slowBytesPerSec`, `/status/<code>` answering
 * that status.
 */
export async function startImageServer(
  files: Record<string, string>,
  opts: { slowBytesPerSec?: number } = {},
): Promise<ImageServer> {
  const slowRate = opts.slowBytesPerSec ?? 8 * 1024 * 1024;
  const hits = new Map<string, number>();
  const server: Server = createServer((req, res) => {
    const url = req.url ?? '/';
    hits.set(url, (hits.get(url) ?? 0) + 1);
    const status = /^\/status\/(\d{3})$/.exec(url);
    if (status) {
      res.writeHead(Number(status[1]));
      res.end();
      return;
    }
    const chunked = url.startsWith('/chunked/');
    const slow = url.startsWith('/slow/');
    const name = url.replace(/^\/(chunked\/|slow\/)?/, '');
    const path = files[name];
    if (!path) {
      res.writeHead(404);
      res.end();
      return;
    }
    res.writeHead(200, {
      'content-type': 'application/octet-stream',
      ...(chunked ? { 'transfer-encoding': 'chunked' } : { 'content-length': String(statSync(path).size) }),
    });
    const body = createReadStream(path, { highWaterMark: 64 * 1024 });
    if (!slow) {
      body.pipe(res);
      return;
    }
    const started = Date.now();
    let sent = 0;
    body
      .pipe(
        new Transform({
          transform(chunk: Buffer, _enc, cb) {
            sent += chunk.length;
            const due = started + (sent / slowRate) * 1000;
            setTimeout(() => cb(null, chunk), Math.max(0, due - Date.now()));
          },
        }),
      )
      .pipe(res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    base: `http://127.0.0.1:${port}`,
    hits,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * A Linux bridge for the VM's NIC (libvirt refuses to start a domain whose bridge is missing).
 * Needs root; the bridge has no ports and no address, so no traffic leaves it.
 */
export async function createTestBridge(): Promise<{ name: string; remove(): Promise<void> }> {
  const name = `epbr${randomBytes(4).toString('hex')}`;
  try {
    await run('ip', ['link', 'add', 'name', name, 'type', 'bridge']);
    await run('ip', ['link', 'set', name, 'up']);
  } catch (err) {
    throw new Error(
      `cannot create the test bridge ${name} (needs root and iproute2): ${(err as Error).message}`,
    );
  }
  return {
    name,
    remove: async () => {
      await run('ip', ['link', 'del', name]).catch(() => {});
    },
  };
}

/** What the real-backend helpers need from a test environment (structural, no dependency). */
export interface RealHostEnv {
  socketPath: string;
  pool: { name: string };
  ssh: { host: string; port: number; username: string; privateKeyPath: string; knownHostsPath: string };
  virsh(...args: string[]): Promise<string>;
}

/**
 * A config block for one real host reached through the env's sshd, booting nothing but the
 * firmware (`domainType: qemu`, so no KVM is needed), images from a local server.
 */
export function realHostConfig(
  env: RealHostEnv,
  o: { bridge: string; images: KvmConfigInput['images']; pool?: string; hostName?: string },
): KvmConfigInput {
  return {
    sshKeyFile: env.ssh.privateKeyPath,
    knownHostsFile: env.ssh.knownHostsPath,
    diskSizeGb: 1,
    domainType: 'qemu',
    images: o.images,
    machineTypes: { small: { vcpus: 1, memoryMiB: 256 } },
    hosts: [
      {
        name: o.hostName ?? 'local',
        address: `${env.ssh.host}:${env.ssh.port}`,
        user: env.ssh.username,
        socket: env.socketPath,
        pool: o.pool ?? env.pool.name,
        bridge: o.bridge,
      },
    ],
  };
}

/** Volume names in a pool, after a refresh. */
export async function poolVolumes(env: RealHostEnv, pool = env.pool.name): Promise<string[]> {
  await env.virsh('pool-refresh', pool);
  return (await env.virsh('vol-list', pool))
    .split('\n')
    .slice(2)
    .map((l) => l.trim().split(/\s+/)[0] ?? '')
    .filter(Boolean);
}

/** Every defined domain's name. */
export async function domainNames(env: RealHostEnv): Promise<string[]> {
  return (await env.virsh('list', '--all', '--name'))
    .split('\n')
    .map((s) => s.trim())
    .filter(Boolean);
}

/** Destroys and undefines the named domains that exist (test cleanup). */
export async function removeDomains(env: RealHostEnv, names: Iterable<string>): Promise<void> {
  const live = new Set(await domainNames(env).catch(() => [] as string[]));
  for (const n of names) {
    if (!live.has(n)) continue;
    await env.virsh('destroy', n).catch(() => {});
    await env.virsh('undefine', n, '--nvram').catch(() => {});
  }
}

/** A real host prepared for a suite: a bridge, images on a local server, a scratch directory. */
export interface RealHostSetup {
  bridge: string;
  dir: string;
  server: ImageServer;
  /** The digest of each served image, by name. */
  sha256: Record<string, string>;
  /** Removes the named domains, then the bridge, the server and the directory. */
  cleanup(domains: Iterable<string>): Promise<void>;
}

/**
 * Prepares a real host for a suite: a test bridge, qcow2 images (`{name: {virtualSize, dataMiB}}`)
 * made by qemu-img and served on 127.0.0.1.
 */
export async function prepareRealHost(
  env: RealHostEnv & { bridge?: string },
  images: Record<string, { virtualSize?: string; dataMiB?: number }>,
  opts: { slowBytesPerSec?: number } = {},
): Promise<RealHostSetup> {
  // A remote host brings its own bridge (and the suite must not add interfaces to it).
  const bridge = env.bridge ? { name: env.bridge, remove: async () => {} } : await createTestBridge();
  const dir = mkdtempSync(join(tmpdir(), 'kvm-real-'));
  const files: Record<string, string> = {};
  const sha256: Record<string, string> = {};
  for (const [name, spec] of Object.entries(images)) {
    const made = await makeQcow2(join(dir, name), spec.virtualSize ?? '64M', spec.dataMiB ?? 0);
    files[name] = made.path;
    sha256[name] = made.sha256;
  }
  const server = await startImageServer(files, opts);
  return {
    bridge: bridge.name,
    dir,
    server,
    sha256,
    async cleanup(domains) {
      await removeDomains(env, domains).catch(() => {});
      await server.close();
      await bridge.remove();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * The domain's metadata element in namespace `uri` as libvirt returns it, or undefined when the
 * domain carries none there.
 */
export async function domainMetadata(
  env: RealHostEnv,
  name: string,
  uri: string,
): Promise<string | undefined> {
  try {
    return (await env.virsh('metadata', name, '--uri', uri)).trim();
  } catch (err) {
    if (/metadata not found|no metadata/i.test((err as Error).message)) return undefined;
    throw err;
  }
}
