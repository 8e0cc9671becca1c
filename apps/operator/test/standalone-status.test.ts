import { writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Io } from '../src/commands/command.js';
import { parseStandaloneFlags } from '../src/commands/standalone-flags.js';
import { showStatus } from '../src/commands/status-run.js';
import { readState } from '../src/standalone/state-file.js';
import { StandalonePoolHarness } from './support/standalone-pool-harness.js';

// `status` from another shell while `up` runs a pool: it reads the state file `up` writes, so
// the pool, its members and its gateway must be in it.
const h = new StandalonePoolHarness('ep-status-', { min: 24440, max: 24449 });
const { stateDir, docsPath } = h;

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

beforeAll(() => h.setup());
afterAll(() => h.close());

describe('status with a pool under up', () => {
  it('lists the pool, its Ready count, members and gateway in table, plain and json', async () => {
    writeFileSync(docsPath, h.poolDoc('crawl', 2));
    const sa = await h.start();
    const pool = await h.waitFor(
      'the pool with 2 Ready members and its gateway in the state file',
      () => {
        const p = readState(stateDir)?.pools?.find((x) => x.key === 'default/crawl');
        return p && p.ready === 2 && p.gateway ? p : undefined;
      },
      () => `state: ${JSON.stringify(readState(stateDir)?.pools)}`,
    );
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
    await h.stopUp();
    const after = captureIo();
    showStatus(parseStandaloneFlags('status', ['--state-dir', stateDir, '--output', 'plain']), after);
    expect(after.text()).toContain('pool crawl ready=');
    expect(after.text()).toContain('gateway=-');
  }, 120_000);
});
