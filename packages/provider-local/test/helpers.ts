import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type CreateRequest, instanceName, type Provider } from '@egress-proxies/contract';
import type { LocalInstance } from '../src/index.js';

export async function tempStateDir(label: string): Promise<string> {
  return mkdtemp(join(tmpdir(), `provider-local-${label}-`));
}

/** Kills every process a state dir records whose cmdline names that state dir, then removes it. */
export async function killAllAndRemove(stateDir: string): Promise<void> {
  const dir = join(stateDir, 'instances');
  const files = existsSync(dir) ? await readdir(dir) : [];
  for (const f of files) {
    try {
      const rec = JSON.parse(await readFile(join(dir, f), 'utf8')) as { pid?: number };
      if (typeof rec.pid !== 'number') continue;
      const cmdline = await readFile(`/proc/${rec.pid}/cmdline`, 'utf8').catch(() => '');
      if (cmdline.includes(stateDir)) process.kill(rec.pid, 'SIGKILL');
    } catch {
      // not a state file of ours, or already gone
    }
  }
  await rm(stateDir, { recursive: true, force: true });
}

/** An HTTP server answering every request with the client's address as seen by the server. */
export async function startEcho(): Promise<{ server: Server; port: number; close(): Promise<void> }> {
  const server = createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ path: req.url, remoteAddress: req.socket.remoteAddress }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    server,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** GET `target` through the HTTP proxy at proxyHost:proxyPort, optionally from a local address. */
export function viaProxy(
  proxyHost: string,
  proxyPort: number,
  target: string,
  localAddress?: string,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: proxyHost,
        port: proxyPort,
        path: target,
        method: 'GET',
        headers: { host: new URL(target).host },
        ...(localAddress ? { localAddress } : {}),
        agent: false,
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c) => {
          body += c;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.setTimeout(10_000, () => req.destroy(new Error('request through the proxy timed out')));
    req.on('error', reject);
    req.end();
  });
}

/**
 * Creates an instance and returns a fetch of the echo server through it, from `source` (a
 * loopback address) when given: what both engines' ACL and egress checks do.
 */
export async function createForFetch(
  provider: Provider,
  echoPort: number,
  req: CreateRequest = makeRequest(),
): Promise<(source?: string) => Promise<{ status: number; body: string }>> {
  const inst = (await provider.get(await provider.create(req))) as LocalInstance;
  return (source) => viaProxy(inst.ip!, inst.port!, `http://127.0.0.1:${echoPort}/`, source);
}

export function makeRequest(overrides: Partial<CreateRequest> = {}): CreateRequest {
  const proxyName = `p-${randomUUID()}`;
  return {
    name: instanceName('tests', proxyName),
    namespace: 'tests',
    proxyName,
    uid: randomUUID(),
    port: 3128,
    placement: {},
    installation: 'test-installation',
    ...overrides,
  };
}

export function processAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !/\) [ZX] /.test(stat);
  } catch {
    return false;
  }
}

/** Makes sure Squid is installed, installing the Debian package when it is not; throws loudly otherwise. */
export function ensureSquid(): string {
  const path = '/usr/sbin/squid';
  if (existsSync(path)) return path;
  const apt = (...args: string[]) =>
    execFileSync('apt-get', args, {
      stdio: 'pipe',
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
      timeout: 300_000,
    });
  try {
    try {
      apt('install', '-y', '--no-install-recommends', 'squid');
    } catch {
      apt('update');
      apt('install', '-y', '--no-install-recommends', 'squid');
    }
  } catch (err) {
    throw new Error(`squid is not installed at ${path} and apt-get install squid failed: ${String(err)}`);
  }
  if (!existsSync(path)) throw new Error(`apt-get install squid ran but ${path} is still missing`);
  return path;
}
