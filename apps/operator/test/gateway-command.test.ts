import { type ChildProcess, execFile, spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MEMBER_HEADER } from '../src/gateway/gateway-server.js';
import {
  echoes,
  egressVia,
  startEchoTarget,
  startMember,
  startTcpEcho,
  type TestMember,
  tunnelVia,
} from './support/through-gateway.js';

// `egress-proxies gateway` as its own process (the chart's gateway Deployment), over fixed members.
const cli = join(import.meta.dirname, '..', 'dist', 'main.js');
let members: TestMember[] = [];
let target: Awaited<ReturnType<typeof startEchoTarget>>;
let tcp: Awaited<ReturnType<typeof startTcpEcho>>;
let child: ChildProcess | undefined;

beforeAll(async () => {
  if (!existsSync(cli)) throw new Error(`${cli} is missing: build the operator first (pnpm build)`);
  members = await Promise.all(['m-a', 'm-b'].map((n, i) => startMember(n, `127.0.0.${21 + i}`)));
  target = await startEchoTarget();
  tcp = await startTcpEcho();
});
afterAll(async () => {
  if (child && child.exitCode === null) child.kill('SIGKILL');
  await Promise.all(members.map((m) => m.kill()));
  await target.close();
  await tcp.close();
});

const memberFlag = () => members.map((m) => `${m.name}=127.0.0.1:${m.port}`).join(',');

describe('egress-proxies gateway', () => {
  it('refuses a non-loopback address without users, naming it', () => {
    const r = spawnSync(
      process.execPath,
      [cli, 'gateway', '--members', memberFlag(), '--listen', '0.0.0.0:0'],
      {
        encoding: 'utf8',
      },
    );
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/refusing to listen on 0\.0\.0\.0 without proxy users/);
  });

  it('--socks-listen serves SOCKS5 (curl --socks5-hostname); off loopback only with users', async () => {
    const open = spawnSync(
      process.execPath,
      [cli, 'gateway', '--members', memberFlag(), '--socks-listen', '0.0.0.0:0'],
      { encoding: 'utf8' },
    );
    expect(open.status).toBe(2);
    expect(open.stderr).toMatch(/refusing to listen on 0\.0\.0\.0 without proxy users/);
    const socks = spawn(
      process.execPath,
      [cli, 'gateway', '--members', memberFlag(), '--listen', '127.0.0.1:0', '--socks-listen', '127.0.0.1:0'],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    socks.stdout?.on('data', (c) => {
      out += c;
    });
    const port = await new Promise<number>((resolve, reject) => {
      socks.stdout?.on('data', () => {
        const line = out.split('\n').find((l) => l.includes('gateway: SOCKS5 listening'));
        if (line) resolve((JSON.parse(line) as { port: number }).port);
      });
      socks.once('exit', (code) => reject(new Error(`gateway exited ${code}: ${out}`)));
    });
    const { stdout } = await promisify(execFile)(
      'curl',
      ['-sS', '--max-time', '10', '--socks5-hostname', `127.0.0.1:${port}`, target.url],
      { encoding: 'utf8' },
    );
    expect(members.map((m) => m.localAddress)).toContain((JSON.parse(stdout) as { ip: string }).ip);
    const exited = new Promise<number | null>((r) => socks.once('exit', (code) => r(code)));
    socks.kill('SIGTERM');
    expect(await exited).toBe(0);
  });

  it('names a bad --members entry', () => {
    const r = spawnSync(process.execPath, [cli, 'gateway', '--members', 'a=nohost'], { encoding: 'utf8' });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('--members: expected name=host:port, got "a=nohost"');
  });

  it('--log-format text writes lines for a terminal, not JSON', async () => {
    const text = spawn(
      process.execPath,
      [cli, 'gateway', '--members', memberFlag(), '--listen', '127.0.0.1:0', '--log-format', 'text'],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    text.stdout?.on('data', (c) => {
      out += c;
    });
    await new Promise<void>((resolve, reject) => {
      text.stdout?.on('data', () => out.includes('gateway: listening') && resolve());
      text.once('exit', (code) => reject(new Error(`gateway exited ${code}: ${out}`)));
    });
    const exited = new Promise<number | null>((r) => text.once('exit', (code) => r(code)));
    text.kill('SIGTERM');
    expect(await exited).toBe(0);
    const line = out.split('\n').find((l) => l.includes('gateway: listening')) as string;
    expect(line).toMatch(/^\S+ INFO {2}gateway: listening .*host=127\.0\.0\.1 port=\d+/);
    expect(() => JSON.parse(line)).toThrow();
  });

  it('routes over the members, and on SIGTERM refuses new connections while open tunnels finish', async () => {
    child = spawn(
      process.execPath,
      [cli, 'gateway', '--members', memberFlag(), '--listen', '127.0.0.1:0', '--drain', '5m'],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let out = '';
    child.stdout?.on('data', (c) => {
      out += c;
    });
    const port = await new Promise<number>((resolve, reject) => {
      const onData = () => {
        const line = out.split('\n').find((l) => l.includes('gateway: listening'));
        if (line) resolve((JSON.parse(line) as { port: number }).port);
      };
      child?.stdout?.on('data', onData);
      child?.once('exit', (code) => reject(new Error(`gateway exited ${code}: ${out}`)));
    });
    const ips = new Set<string>();
    for (let i = 0; i < 4; i++) ips.add(await egressVia(port, target.url));
    expect(ips).toEqual(new Set(members.map((m) => m.localAddress)));
    const t = await tunnelVia(port, tcp.target);
    expect(t.status).toBe(200);
    expect(members.map((m) => m.name)).toContain(t.headers[MEMBER_HEADER]);
    const exited = new Promise<number | null>((r) => child?.once('exit', (code) => r(code)));
    child.kill('SIGTERM');
    await new Promise<void>((resolve) => {
      const check = () => (out.includes('gateway: draining') ? resolve() : setTimeout(check, 20));
      check();
    });
    await expect(egressVia(port, target.url)).rejects.toThrow(/ECONNREFUSED/);
    await echoes(t.socket, 'still open while draining');
    t.socket.end();
    expect(await exited).toBe(0);
    // JSON logs only, and none with credentials (none were sent; the shape is what matters here).
    for (const line of out.trim().split('\n')) expect(() => JSON.parse(line)).not.toThrow();
  });
});
