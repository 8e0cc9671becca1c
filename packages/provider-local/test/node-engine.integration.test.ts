import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ErrorCode, InstanceState, isNotFound, ProviderError } from '@egress-proxies/contract';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createLocalProvider, type LocalInstance } from '../src/index.js';
import { encodeState, formatId, parseId } from '../src/internal/index.js';
import {
  createForFetch,
  killAllAndRemove,
  makeRequest,
  processAlive,
  startEcho,
  tempStateDir,
  viaProxy,
} from './helpers.js';

const RANGE = { min: 23000, max: 23049 };
let echo: Awaited<ReturnType<typeof startEcho>>;
const stateDirs: string[] = [];
const sleepers: number[] = [];

async function setup(extra: Record<string, unknown> = {}) {
  const stateDir = await tempStateDir('node');
  stateDirs.push(stateDir);
  const config = { stateDir, engine: 'node' as const, portRange: RANGE, ...extra };
  const provider = createLocalProvider(config, {
    name: 'local-test',
    localAddresses: () => ['127.0.0.1', '127.0.0.3'],
  });
  return { stateDir, provider, config };
}

async function recordOf(stateDir: string, id: string): Promise<Record<string, unknown>> {
  return JSON.parse(await readFile(join(stateDir, 'instances', `${parseId(id)}.json`), 'utf8'));
}

beforeAll(async () => {
  echo = await startEcho();
});
afterEach(async () => {
  for (const d of stateDirs.splice(0)) await killAllAndRemove(d);
  for (const pid of sleepers.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
});
afterAll(async () => {
  await echo.close();
});

describe('node engine on the real host', () => {
  it('creates a proxy that is Running at once and forwards to a local server', async () => {
    const { provider, stateDir } = await setup();
    const req = makeRequest();
    const id = await provider.create(req);
    expect(id).toBe(formatId(req.name));
    const inst = (await provider.get(id)) as LocalInstance;
    expect(inst.state).toBe(InstanceState.Running);
    expect(inst.ip).toBe('127.0.0.1');
    expect(inst.uid).toBe(req.uid);
    expect(inst.installation).toBe('test-installation');
    expect(inst.engine).toBe('node');
    expect(inst.port).toBeGreaterThanOrEqual(RANGE.min);
    expect(inst.port).toBeLessThanOrEqual(RANGE.max);
    const res = await viaProxy(inst.ip!, inst.port!, `http://127.0.0.1:${echo.port}/hello`);
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body)).toMatchObject({ path: '/hello', remoteAddress: '127.0.0.1' });
    const rec = await recordOf(stateDir, id);
    expect(rec).toMatchObject({ kind: 'egress-proxies.local-instance/v1', managed: 'true', uid: req.uid });
    expect(processAlive(rec.pid as number)).toBe(true);
  });

  it('uses the requested port when it is inside the range and free', async () => {
    const { provider } = await setup();
    const id = await provider.create(makeRequest({ port: RANGE.min + 7 }));
    expect(((await provider.get(id)) as LocalInstance).port).toBe(RANGE.min + 7);
  });

  it('gives two proxies with the same requested port two ports', async () => {
    const { provider } = await setup();
    const a = (await provider.get(
      await provider.create(makeRequest({ port: RANGE.min + 9 })),
    )) as LocalInstance;
    const b = (await provider.get(
      await provider.create(makeRequest({ port: RANGE.min + 9 })),
    )) as LocalInstance;
    expect(a.port).toBe(RANGE.min + 9);
    expect(b.port).not.toBe(a.port);
    expect(b.state).toBe(InstanceState.Running);
  });

  it('survives a restart: a new provider over the same state dir lists and gets the running proxy', async () => {
    const { provider, config } = await setup();
    const req = makeRequest();
    const id = await provider.create(req);
    await provider.close();
    const again = createLocalProvider(config, { name: 'local-test' });
    const listed = await again.listByTag();
    expect(listed.map((i) => i.id)).toEqual([id]);
    expect(listed[0]).toMatchObject({ uid: req.uid, installation: 'test-installation', state: 'Running' });
    const inst = (await again.get(id)) as LocalInstance;
    expect(inst.state).toBe(InstanceState.Running);
    expect((await viaProxy(inst.ip!, inst.port!, `http://127.0.0.1:${echo.port}/`)).status).toBe(200);
    // create from the new provider adopts instead of starting a second process
    const pidBefore = (await recordOf(config.stateDir, id)).pid;
    expect(await again.create(req)).toBe(id);
    expect((await recordOf(config.stateDir, id)).pid).toBe(pidBefore);
  });

  it('reports a killed process as Stopped, and create starts it again', async () => {
    const { provider, stateDir } = await setup();
    const req = makeRequest();
    const id = await provider.create(req);
    const { pid } = await recordOf(stateDir, id);
    process.kill(pid as number, 'SIGKILL');
    await expect.poll(() => processAlive(pid as number)).toBe(false);
    const stopped = await provider.get(id);
    expect(stopped.state).toBe(InstanceState.Stopped);
    expect(stopped.ip).toBeUndefined();
    expect(await provider.create(req)).toBe(id);
    const running = (await provider.get(id)) as LocalInstance;
    expect(running.state).toBe(InstanceState.Running);
    expect((await recordOf(stateDir, id)).pid).not.toBe(pid);
  });

  it('never signals a stale pid: a reused pid reads as Stopped and delete leaves the process alone', async () => {
    const { provider, stateDir } = await setup();
    const sleeper = spawn('sleep', ['300'], { stdio: 'ignore' });
    await new Promise((r) => sleeper.once('spawn', r));
    const pid = sleeper.pid as number;
    sleepers.push(pid);
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    const realStart = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]!;
    for (const startTime of ['12345', realStart]) {
      // The second round records the sleeper's true start time: only the cmdline check is left.
      const req = makeRequest();
      const id = formatId(req.name);
      await mkdir(join(stateDir, 'instances'), { recursive: true });
      await writeFile(
        join(stateDir, 'instances', `${req.name}.json`),
        encodeState({
          uid: req.uid,
          createdAt: new Date(),
          engine: 'node',
          port: RANGE.min + 1,
          pid,
          startTime,
        }),
      );
      expect((await provider.get(id)).state).toBe(InstanceState.Stopped);
      expect((await provider.listByTag()).find((i) => i.id === id)?.state).toBe(InstanceState.Stopped);
      await provider.delete(id);
      expect(processAlive(pid)).toBe(true);
      expect(existsSync(join(stateDir, 'instances', `${req.name}.json`))).toBe(false);
    }
  });

  it('finds a proxy whose pid was never recorded (a crash after spawn) by its runtime path', async () => {
    const { provider, stateDir } = await setup();
    const req = makeRequest();
    const id = await provider.create(req);
    const file = join(stateDir, 'instances', `${req.name}.json`);
    const forget = async () => {
      const rec = JSON.parse(await readFile(file, 'utf8'));
      const pid = rec.pid as number;
      delete rec.pid;
      delete rec.startTime;
      await writeFile(file, JSON.stringify(rec));
      return pid;
    };
    const stray = await forget();
    expect((await provider.get(id)).state).toBe(InstanceState.Stopped);
    // create stops the unrecorded process before it starts the one it records
    expect(await provider.create(req)).toBe(id);
    expect(processAlive(stray)).toBe(false);
    const again = (await provider.get(id)) as LocalInstance;
    expect(again.state).toBe(InstanceState.Running);
    // delete stops an unrecorded process too
    const stray2 = await forget();
    expect(processAlive(stray2)).toBe(true);
    await provider.delete(id);
    expect(processAlive(stray2)).toBe(false);
    expect(existsSync(file)).toBe(false);
  });

  it('deletes twice: the process is stopped, the files are gone, then NotFound', async () => {
    const { provider, stateDir } = await setup();
    const id = await provider.create(makeRequest());
    const { pid } = await recordOf(stateDir, id);
    await provider.delete(id);
    expect(processAlive(pid as number)).toBe(false);
    expect(existsSync(join(stateDir, 'run', parseId(id)))).toBe(false);
    expect(existsSync(join(stateDir, 'instances', `${parseId(id)}.json`))).toBe(false);
    await provider.delete(id);
    const err = await provider.get(id).catch((e: unknown) => e);
    expect(isNotFound(err)).toBe(true);
    expect(await provider.listByTag()).toEqual([]);
  });

  it('refuses a client outside allowedSourceCIDRs with 403', async () => {
    const { provider } = await setup({ allowedSourceCIDRs: ['127.0.0.2/32'] });
    const fetchThrough = await createForFetch(provider, echo.port);
    expect((await fetchThrough()).status).toBe(403);
    expect((await fetchThrough('127.0.0.2')).status).toBe(200);
  });

  it('sends outgoing connections from placement.zone', async () => {
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

  it('loopbackEgress gives each proxy its own 127.0.0.N, reusing one only after its proxy is gone', async () => {
    const { provider } = await setup({ loopbackEgress: true });
    const reqs = [makeRequest(), makeRequest(), makeRequest()];
    // Concurrent creates: the allocation is serialized, so no two share an address.
    const fetches = await Promise.all(reqs.map((r) => createForFetch(provider, echo.port, r)));
    const seen = await Promise.all(fetches.map(async (f) => JSON.parse((await f()).body).remoteAddress));
    expect(new Set(seen)).toEqual(new Set(['127.0.0.2', '127.0.0.3', '127.0.0.4']));
    const first = reqs[seen.indexOf('127.0.0.2')] as (typeof reqs)[number];
    await provider.delete(formatId(first.name));
    const again = await createForFetch(provider, echo.port);
    expect(JSON.parse((await again()).body).remoteAddress).toBe('127.0.0.2');
    // A zone still wins over the allocation.
    const zoned = await createForFetch(
      provider,
      echo.port,
      makeRequest({ placement: { zone: '127.0.0.3' } }),
    );
    expect(JSON.parse((await zoned()).body).remoteAddress).toBe('127.0.0.3');
  });

  it('an egress plan gives each proxy its own planned address, recorded in its mark, freed on delete', async () => {
    const plan = { ipv4: ['127.0.0.20-127.0.0.22'], exclude: ['127.0.0.21'] };
    const { provider, config } = await setup({ egress: plan });
    const reqs = [makeRequest(), makeRequest()];
    // Concurrent creates: the allocation is serialized, so no two share an address.
    const ids = await Promise.all(reqs.map((r) => provider.create(r)));
    const instances = (await Promise.all(ids.map((id) => provider.get(id)))) as LocalInstance[];
    const assigned = instances.map((i) => i.egress?.ipv4);
    expect(new Set(assigned)).toEqual(new Set(['127.0.0.20', '127.0.0.22']));
    // The far end sees the assigned address.
    for (const inst of instances) {
      const res = await viaProxy(inst.ip!, inst.port!, `http://127.0.0.1:${echo.port}/`);
      expect(JSON.parse(res.body).remoteAddress).toBe(inst.egress?.ipv4);
    }
    expect((await provider.listByTag()).map((i) => i.egress?.ipv4).sort()).toEqual([
      '127.0.0.20',
      '127.0.0.22',
    ]);

    // A new provider on the same state directory (a restart) reads the allocation back from the marks.
    const restarted = createLocalProvider(config, { name: 'local-test' });
    const extra = makeRequest();
    const err = await restarted.create(extra).catch((e: unknown) => e);
    expect(ProviderError.isInstance(err) && err.kind).toBe('QuotaExceeded');
    expect(ProviderError.isInstance(err) && err.code).toBe('EGRESS_PLAN_EXHAUSTED');
    const message = (err as Error).message;
    expect(message).toContain('local-test');
    expect(message).toContain('all 2 of its 2 IPv4 addresses (127.0.0.20 .. 127.0.0.22)');
    for (const [i, r] of reqs.entries()) expect(message).toContain(`${r.name} (${assigned[i]})`);

    // Deleting one frees its address for the next create.
    await provider.delete(ids[0] as string);
    const again = (await restarted.get(await restarted.create(extra))) as LocalInstance;
    expect(again.egress).toEqual({ ipv4: assigned[0] });
  });

  it('refuses a zone that is not an address of this host, naming it, before touching anything', async () => {
    const { provider, stateDir } = await setup();
    const err = await provider
      .create(makeRequest({ placement: { zone: '192.0.2.77' } }))
      .catch((e: unknown) => e);
    expect(ProviderError.isInstance(err) && err.code).toBe(ErrorCode.InvalidPlacement);
    expect((err as Error).message).toContain('192.0.2.77');
    expect(existsSync(join(stateDir, 'instances'))).toBe(false);
  });
});
