import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { InstanceState } from '@egress-proxies/contract';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createLocalProvider, type LocalInstance } from '../src/index.js';
import { parseId } from '../src/internal/index.js';
import {
  createForFetch,
  ensureSquid,
  killAllAndRemove,
  makeRequest,
  processAlive,
  startEcho,
  tempStateDir,
  viaProxy,
} from './helpers.js';

const RANGE = { min: 23100, max: 23149 };
let squidPath: string;
let echo: Awaited<ReturnType<typeof startEcho>>;
const stateDirs: string[] = [];

async function setup(extra: Record<string, unknown> = {}) {
  const stateDir = await tempStateDir('squid');
  stateDirs.push(stateDir);
  const config = { stateDir, engine: 'squid' as const, squidPath, portRange: RANGE, ...extra };
  const provider = createLocalProvider(config, {
    name: 'local-squid',
    localAddresses: () => ['127.0.0.1', '127.0.0.3'],
  });
  const checker = provider;
  return { stateDir, provider, checker, config };
}

async function pidOf(stateDir: string, id: string): Promise<number> {
  return JSON.parse(await readFile(join(stateDir, 'instances', `${parseId(id)}.json`), 'utf8')).pid;
}

beforeAll(async () => {
  squidPath = ensureSquid();
  echo = await startEcho();
});
afterEach(async () => {
  for (const d of stateDirs.splice(0)) await killAllAndRemove(d);
});
afterAll(async () => {
  await echo?.close();
});

describe('squid engine on the real host', () => {
  it('creates a Squid per proxy that forwards to a local server, and deletes it', async () => {
    const { provider, stateDir } = await setup();
    const id = await provider.create(makeRequest());
    const inst = (await provider.get(id)) as LocalInstance;
    expect(inst).toMatchObject({ state: InstanceState.Running, ip: '127.0.0.1', engine: 'squid' });
    const res = await viaProxy(inst.ip!, inst.port!, `http://127.0.0.1:${echo.port}/through-squid`);
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body).path).toBe('/through-squid');
    const pid = await pidOf(stateDir, id);
    const cmdline = await readFile(`/proc/${pid}/cmdline`, 'utf8');
    expect(cmdline.split('\0')[0]).toBe(squidPath);
    const conf = await readFile(join(stateDir, 'run', parseId(id), 'squid.conf'), 'utf8');
    expect(conf).toContain(`http_port 127.0.0.1:${inst.port}`);
    expect(conf).toContain('http_access deny all');
    await provider.delete(id);
    expect(processAlive(pid)).toBe(false);
    await provider.delete(id);
    expect(await provider.listByTag()).toEqual([]);
  });

  it('denies a source outside allowedSourceCIDRs with 403 from Squid', async () => {
    const { provider } = await setup({ allowedSourceCIDRs: ['127.0.0.2/32'] });
    const fetchThrough = await createForFetch(provider, echo.port);
    expect((await fetchThrough()).status).toBe(403);
    expect((await fetchThrough('127.0.0.2')).status).toBe(200);
  });

  it('sends outgoing connections from placement.zone (tcp_outgoing_address)', async () => {
    const { provider } = await setup();
    const fetchThrough = await createForFetch(
      provider,
      echo.port,
      makeRequest({ placement: { zone: '127.0.0.3' } }),
    );
    const res = await fetchThrough();
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body).remoteAddress).toBe('127.0.0.3');
  });

  it('survives a restart and reports a killed Squid as Stopped', async () => {
    const { provider, config, stateDir } = await setup();
    const req = makeRequest();
    const id = await provider.create(req);
    const again = createLocalProvider(config, { name: 'local-squid' });
    expect((await again.listByTag()).map((i) => i.id)).toEqual([id]);
    expect((await again.get(id)).state).toBe(InstanceState.Running);
    const pid = await pidOf(stateDir, id);
    process.kill(pid, 'SIGKILL');
    await expect.poll(() => processAlive(pid)).toBe(false);
    expect((await again.get(id)).state).toBe(InstanceState.Stopped);
    expect(await again.create(req)).toBe(id);
    expect((await again.get(id)).state).toBe(InstanceState.Running);
  });

  it('the checker reports the host Ready with the Squid version', async () => {
    const { checker } = await setup();
    const [r] = await checker.check();
    expect(r).toMatchObject({ ready: true, reason: 'Ready' });
    expect(r!.details.engine).toBe('squid');
    expect(r!.details.engineVersion).toMatch(/^\d+\.\d+/);
    expect(Number(r!.details.freePorts)).toBeGreaterThan(0);
  });
});
