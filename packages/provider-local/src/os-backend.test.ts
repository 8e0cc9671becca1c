import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createOsBackend } from './os-backend.js';

const dirs: string[] = [];
afterEach(async () => {
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});
async function backend() {
  const dir = await mkdtemp(join(tmpdir(), 'os-backend-'));
  dirs.push(dir);
  return { dir, b: createOsBackend(dir) };
}

describe('the host backend', () => {
  it('writes state files atomically, lists only valid names and reads absence as undefined', async () => {
    const { dir, b } = await backend();
    expect(await b.listStates(undefined)).toEqual([]);
    expect(await b.readState(undefined, 'proxy-a')).toBeUndefined();
    await b.writeState(undefined, 'proxy-a', 'one');
    await b.writeState(undefined, 'proxy-a', 'two');
    await writeFile(join(dir, 'instances', 'Not_A_Name.json'), '{}');
    await writeFile(join(dir, 'instances', 'notes.txt'), 'x');
    expect(await b.readState(undefined, 'proxy-a')).toBe('two');
    expect(await b.listStates(undefined)).toEqual(['proxy-a']);
    expect((await readdir(join(dir, 'instances'))).filter((f) => f.includes('.tmp-'))).toEqual([]);
    await b.removeState(undefined, 'proxy-a');
    await b.removeState(undefined, 'proxy-a');
    expect(await b.listStates(undefined)).toEqual([]);
  });

  it("clears the probe and temp files of writers killed midway, never a live writer's", async () => {
    const { dir, b } = await backend();
    await b.probeStateDir(undefined);
    const instances = join(dir, 'instances');
    const dead = 2 ** 22 + 7; // above the kernel's pid_max default: never a live process
    const left = [`.probe-${dead}-0a1b2c3d`, `proxy-a.json.tmp-${dead}-0a1b2c3d`];
    const live = [`.probe-${process.pid}-0a1b2c3d`, `proxy-b.json.tmp-${process.pid}-0a1b2c3d`];
    for (const f of [...left, ...live]) await writeFile(join(instances, f), 'x');
    await b.probeStateDir(undefined);
    expect((await readdir(instances)).sort()).toEqual([...live].sort());
  });

  it('writes and removes runtime directories', async () => {
    const { b } = await backend();
    const dir = await b.writeRuntime(undefined, 'proxy-b', { 'x.conf': 'hello\n' });
    expect(await readFile(join(dir, 'x.conf'), 'utf8')).toBe('hello\n');
    expect(await b.listRuntime(undefined)).toEqual(['proxy-b']);
    await b.removeRuntime(undefined, 'proxy-b');
    await b.removeRuntime(undefined, 'proxy-b');
    expect(await b.listRuntime(undefined)).toEqual([]);
  });

  it('inspects this process: alive, its start time, its cmdline and the ports it listens on', async () => {
    const { b } = await backend();
    const server = createServer();
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as { port: number }).port;
    try {
      const info = await b.inspect(undefined, process.pid);
      expect(info.alive).toBe(true);
      expect(info.startTime).toMatch(/^\d+$/);
      expect(info.cmdline?.length).toBeGreaterThan(0);
      expect(info.listenPorts).toContain(port);
      expect(await b.probePort(undefined, '127.0.0.1', port)).toBe(true);
      expect(await b.portFree(undefined, '127.0.0.1', port)).toBe(false);
    } finally {
      await new Promise<void>((r) => server.close(() => r()));
    }
    expect(await b.probePort(undefined, '127.0.0.1', port)).toBe(false);
    expect(await b.portFree(undefined, '127.0.0.1', port)).toBe(true);
  });

  it('reads a pid that does not exist as not alive, and signalling it is a no-op', async () => {
    const { b } = await backend();
    const pid = 4_000_000; // above the kernel's pid_max ceiling
    expect(await b.inspect(undefined, pid)).toEqual({ alive: false });
    await b.kill(undefined, pid, 'SIGTERM');
  });

  it('rejects promptly with an aborted signal', async () => {
    const { b } = await backend();
    const ac = new AbortController();
    ac.abort();
    for (const call of [
      () => b.probePort(ac.signal, '127.0.0.1', 1),
      () => b.writeState(ac.signal, 'proxy-c', 'x'),
    ]) {
      const err = await call().catch((e: unknown) => e);
      expect((err as Error).name).toBe('AbortError');
    }
    expect(await b.readState(undefined, 'proxy-c')).toBeUndefined();
  });

  it('finds the Node engine and reports its versions', async () => {
    const { b } = await backend();
    expect(await b.engineVersion(undefined, 'node')).toMatch(/^node v\d+.*proxy-chain \d+\.\d+/);
    expect(await b.userIds(undefined, 'root')).toEqual({ uid: 0, gid: 0 });
    expect(await b.userIds(undefined, 'no-such-user-here')).toBeUndefined();
  });
});
