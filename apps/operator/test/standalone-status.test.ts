import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Io } from '../src/commands/command.js';
import { parseStandaloneFlags } from '../src/commands/standalone-flags.js';
import { showStatus } from '../src/commands/standalone-run.js';
import { down } from '../src/standalone/down.js';
import { startEchoServer } from '../src/standalone/echo-server.js';
import { type RunningStandalone, startStandalone } from '../src/standalone/standalone.js';
import { readState } from '../src/standalone/state-file.js';

// `status` from another shell while `up` runs a pool: it reads the state file `up` writes, so
// the pool, its members and its gateway must be in it.
const dir = mkdtempSync(join(tmpdir(), 'ep-status-'));
const stateDir = join(dir, 'state');
const providersPath = join(dir, 'providers.yaml');
const docsPath = join(dir, 'pools.yaml');
let echo: Awaited<ReturnType<typeof startEchoServer>>;
let sa: RunningStandalone | undefined;

function captureIo(columns?: number): Io & { text: () => string } {
  let out = '';
  return {
    out: (t) => {
      out += t;
    },
    err: (t) => {
      out += t;
    },
    isTTY: false,
    ...(columns ? { columns } : {}),
    interrupted: new Promise(() => {}),
    text: () => out,
  };
}

async function waitFor<T>(what: string, fn: () => T | undefined | false, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = fn();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for ${what}; state: ${JSON.stringify(readState(stateDir)?.pools)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

beforeAll(async () => {
  echo = await startEchoServer();
  writeFileSync(
    providersPath,
    `- name: local\n  type: local\n  local: {stateDir: local, portRange: {min: 24440, max: 24449}, engine: node, loopbackEgress: true}\n`,
  );
});
afterAll(async () => {
  await sa?.stop();
  if (existsSync(stateDir)) await down({ providersPath, stateDir }).catch(() => {});
  await echo?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('status with a pool under up', () => {
  it('lists the pool, its Ready count, members and gateway in table, plain and json', async () => {
    writeFileSync(
      docsPath,
      `apiVersion: egress-proxies.dev/v1alpha1
kind: ProxyPool
metadata:
  name: crawl
spec:
  replicas: 2
  template:
    provider: local
    probe: {target: "${echo.url}", interval: 30s, timeout: 2s, retries: 1}
  gateway: {port: ${echo.port}}
`,
    );
    sa = await startStandalone({
      proxyPaths: [docsPath],
      providersPath,
      stateDir,
      debounceMs: 50,
      rescanMs: 300,
      pollIntervalMs: 200,
      failedProbeRetryMs: 300,
      defaultProbeTarget: echo.url,
    });
    const pool = await waitFor('the pool with 2 Ready members and its gateway in the state file', () => {
      const p = readState(stateDir)?.pools?.find((x) => x.key === 'default/crawl');
      return p && p.ready === 2 && p.gateway ? p : undefined;
    });
    const gateway = sa.pools.views()[0]?.gateway;
    expect(pool.gateway).toBe(gateway);
    const names = pool.members.map((m) => m.name);
    expect(names).toHaveLength(2);

    const plain = captureIo();
    expect(
      showStatus(parseStandaloneFlags('status', ['--state-dir', stateDir, '--output', 'plain']), plain),
    ).toBe(0);
    expect(plain.text()).toContain(`pool crawl ready=2/2 gateway=${gateway} members=${names.join(',')}`);

    const table = captureIo(200);
    expect(
      showStatus(parseStandaloneFlags('status', ['--state-dir', stateDir, '--output', 'table']), table),
    ).toBe(0);
    const lines = table.text().split('\n');
    const header = lines.findIndex((l) => /^POOL\s+READY\s+GATEWAY\s+MEMBERS$/.test(l));
    expect(header, table.text()).toBeGreaterThan(0);
    expect(lines[header + 1]).toMatch(new RegExp(`^crawl\\s+2/2\\s+${gateway}\\s+${names.join(',')}$`));

    const json = captureIo();
    expect(
      showStatus(parseStandaloneFlags('status', ['--state-dir', stateDir, '--output', 'json']), json),
    ).toBe(0);
    const record = JSON.parse(json.text()) as {
      pools: {
        pool: string;
        ready: number;
        gateway: string;
        members: { name: string; egressIP?: string }[];
      }[];
    };
    expect(record.pools).toEqual([
      expect.objectContaining({ pool: 'default/crawl', desired: 2, ready: 2, gateway }),
    ]);
    expect(record.pools[0]?.members.map((m) => m.name).sort()).toEqual([...names].sort());

    // After up stops, its gateway is gone: status no longer shows one.
    await sa.stop();
    sa = undefined;
    const after = captureIo();
    showStatus(parseStandaloneFlags('status', ['--state-dir', stateDir, '--output', 'plain']), after);
    expect(after.text()).toContain('pool crawl ready=');
    expect(after.text()).toContain('gateway=-');
  }, 120_000);
});
