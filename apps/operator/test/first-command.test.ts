import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEchoServer } from '../src/standalone/echo-server.js';
import { getThroughProxy } from './support/forward-proxy.js';

// The README's first command without its install and build steps: the built CLI with the
// arguments `npm start` passes (read from the same file), from the repository root.
const root = join(import.meta.dirname, '..', '..', '..');
const cli = join(root, 'apps', 'operator', 'dist', 'main.js');
const upArgs = JSON.parse(readFileSync(join(root, 'examples/standalone/up-args.json'), 'utf8')) as string[];
const flag = (name: string) => upArgs[upArgs.indexOf(name) + 1]!;
const downArgs = ['down', '--providers', flag('--providers'), '--state-dir', flag('--state-dir')];

let child: ChildProcess | undefined;
let out = '';
let err = '';

async function until(what: string, fn: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!fn()) {
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for ${what}\nstdout:\n${out}\nstderr:\n${err}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

beforeAll(() => {
  if (!existsSync(cli)) throw new Error(`${cli} is missing: build the operator first (pnpm build)`);
});

afterAll(async () => {
  if (child && child.exitCode === null) {
    child.kill('SIGINT');
    await new Promise((r) => child?.once('exit', r));
  }
  spawnSync(process.execPath, [cli, ...downArgs], { cwd: root, encoding: 'utf8' });
});

describe('the first command (npm start)', () => {
  it('brings a pool of three local proxies to Ready, prints a curl line through its gateway that works, stops on Ctrl-C, and down cleans up', async () => {
    // As `npm start` runs it: the commands it prints must run from the clone as printed.
    child = spawn(process.execPath, [cli, ...upArgs, '--output', 'plain'], {
      cwd: root,
      stdio: 'pipe',
      env: { ...process.env, EGRESS_PROXIES_COMMAND: 'npm run egress-proxies --' },
    });
    child.stdout?.on('data', (c) => {
      out += c;
    });
    child.stderr?.on('data', (c) => {
      err += c;
    });
    await until('the curl line', () => /^try: curl -x \S+ \S+$/m.test(out), 60_000);
    expect(out).toContain('all 3 proxies are Ready.');
    // A newcomer's first screen carries no warnings and no invalid-document or provider complaints.
    expect(err).not.toMatch(/Warning|invalid Proxy document|is not ready/);
    // It says where the status page is, with the curl line for its data, and the page answers.
    const page = /^status page: (http:\/\/127\.0\.0\.1:\d+\/) \(its data: curl \1api\/status\)$/m.exec(err);
    expect(page, err).not.toBeNull();
    const data = (await (await fetch(`${page?.[1]}api/status`)).json()) as { pools: { pool: string }[] };
    expect(data.pools.map((p) => p.pool)).toEqual(['default/demo']);
    const members = new Set(
      [...out.matchAll(/^(demo-[a-z0-9]{5}) local Ready 127\.0\.0\.1:\d+ healthy=true/gm)].map((m) => m[1]),
    );
    expect(members.size).toBe(3);
    expect(out).toMatch(/^pool default\/demo: 3\/3 Ready behind the gateway http:\/\/127\.0\.0\.1:\d+$/m);
    const [, proxy, target] = /^try: curl -x (\S+) (\S+)$/m.exec(out)!;
    expect(proxy).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(target).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    // `status` from another shell sees the same.
    const st = spawnSync(
      process.execPath,
      [cli, 'status', '--state-dir', flag('--state-dir'), '--output', 'json'],
      {
        cwd: root,
        encoding: 'utf8',
      },
    );
    expect(st.status).toBe(0);
    const status = JSON.parse(st.stdout) as {
      upRunning: boolean;
      proxies: { phase: string; address: string }[];
    };
    expect(status.upRunning).toBe(true);
    expect(status.proxies.map((p) => p.phase)).toEqual(['Ready', 'Ready', 'Ready']);
    // Through the gateway: three requests leave from the three members' own loopback addresses.
    const seen = new Set<string>();
    for (let i = 0; i < 3; i++) {
      const r = await getThroughProxy(proxy!, target!);
      expect(r.status).toBe(200);
      seen.add((JSON.parse(r.body) as { ip: string }).ip);
    }
    expect([...seen].sort()).toEqual(['127.0.0.2', '127.0.0.3', '127.0.0.4']);

    // Ctrl-C: reconciling stops, the proxies keep running, and the way to delete them is printed.
    const exited = new Promise<number | null>((resolve) => child!.once('exit', (code) => resolve(code)));
    child.kill('SIGINT');
    expect(await exited).toBe(0);
    const downLine =
      /stopped reconciling; 3 proxies keep running\. Delete: (npm run egress-proxies -- down .*)$/m.exec(
        out,
      )?.[1];
    expect(downLine, out).toBeDefined();
    // It says what went with `up`, and how to run the gateway alone over the running proxies.
    expect(out).toMatch(
      /^the gateway http:\/\/127\.0\.0\.1:\d+ of pool default\/demo and the demo target http:\/\/127\.0\.0\.1:\d+\/ stopped with up: the curl lines above no longer answer\.$/m,
    );
    const gatewayLine =
      /^run the gateway alone over the running proxies: (npm run egress-proxies -- gateway .*)$/m.exec(
        out,
      )?.[1];
    expect(gatewayLine, out).toBeDefined();
    const ports = [...out.matchAll(/^demo-[a-z0-9]{5} local Ready 127\.0\.0\.1:(\d+)/gm)].map((m) => m[1]);
    expect(new Set(ports).size).toBe(3);
    // The gateway went with `up` (drained), the members did not.
    await expect(getThroughProxy(proxy!, target!)).rejects.toThrow();
    for (const port of new Set(ports)) {
      // The echo target went with `up`; the proxy itself still answers (502 from the target side).
      const res = await getThroughProxy(`http://127.0.0.1:${port}`, target!);
      expect(res.status).toBeGreaterThanOrEqual(400);
    }

    // The gateway line as printed, through a shell from the clone: it routes over the members.
    const echo = await startEchoServer();
    const gw = spawn('sh', ['-c', `exec ${gatewayLine}`], { cwd: root, stdio: 'pipe', detached: true });
    let gwOut = '';
    gw.stdout?.on('data', (c) => {
      gwOut += c;
    });
    gw.stderr?.on('data', (c) => {
      gwOut += c;
    });
    try {
      const seenAlone = new Set<string>();
      await until(
        'the gateway run alone to answer',
        () => {
          void getThroughProxy(proxy!, echo.url).then(
            (r) => r.status === 200 && seenAlone.add((JSON.parse(r.body) as { ip: string }).ip),
            () => {},
          );
          return seenAlone.size > 0;
        },
        60_000,
      ).catch((e: Error) => {
        throw new Error(`${e.message}\ngateway output:\n${gwOut}`);
      });
    } finally {
      process.kill(-(gw.pid as number), 'SIGTERM');
      await new Promise((r) => gw.once('exit', r));
      await echo.close();
    }

    // The down line as printed, through a shell from the clone.
    const d = spawnSync('sh', ['-c', downLine as string], { cwd: root, encoding: 'utf8' });
    expect(d.stdout).toMatch(/deleted 3 instance\(s\) of installation standalone-/);
    expect(d.status, d.stderr).toBe(0);
    for (const port of new Set(ports))
      await expect(getThroughProxy(`http://127.0.0.1:${port}`, target!)).rejects.toThrow();
  }, 180_000);
});
