import { readFile, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { ErrorCode, InstanceState, isPermanent, isTransient, ProviderError } from '@egress-proxies/contract';
import { createLogger, type LogLine } from '@egress-proxies/provider-utils';
import { afterEach, describe, expect, it } from 'vitest';
import { createLocalProvider, type LocalBackend, LocalErrorCode, type LocalInstance } from '../src/index.js';
import { createOsBackend } from '../src/internal/index.js';
import { killAllAndRemove, makeRequest, tempStateDir } from './helpers.js';

const RANGE = { min: 23050, max: 23059 };
const cleanups: (() => Promise<void>)[] = [];

afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function stateDir(label: string) {
  const dir = await tempStateDir(label);
  cleanups.push(() => killAllAndRemove(dir));
  return dir;
}

function hold(port: number): Promise<Server> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen({ host: '127.0.0.1', port, exclusive: true }, () => {
      cleanups.push(() => new Promise((r) => s.close(() => r())));
      resolve(s);
    });
  });
}

describe('create failures on the real host', () => {
  /** A backend on which someone binds the allocated port right before the proxy starts, `times` times. */
  function racingBackend(dir: string, times: number) {
    const os = createOsBackend(dir);
    const stolen: number[] = [];
    const backend: LocalBackend = {
      ...os,
      async spawn(signal, spec) {
        const conf = JSON.parse(await readFile(join(spec.runtimeDir, 'node-proxy.json'), 'utf8'));
        if (stolen.length < times) {
          stolen.push(conf.port as number);
          await hold(conf.port as number);
        }
        return os.spawn(signal, spec);
      },
    };
    return { backend, stolen };
  }

  it('starts on another port when the allocated one is taken between the probe and the bind', async () => {
    const dir = await stateDir('stolen');
    const { backend, stolen } = racingBackend(dir, 1);
    const provider = createLocalProvider(
      { stateDir: dir, engine: 'node', portRange: RANGE },
      { backend, name: 'local-failures' },
    );
    const lines: LogLine[] = [];
    const logger = createLogger({ verbosity: 1, sink: (l) => lines.push(l) });
    const req = makeRequest();
    const id = await provider.create(req, { logger });
    const inst = (await provider.get(id)) as LocalInstance;
    expect(inst.state).toBe(InstanceState.Running);
    expect(stolen).toHaveLength(1);
    expect(inst.port).not.toBe(stolen[0]);
    expect(lines).toContainEqual(expect.objectContaining({ name: req.name, port: stolen[0], attempt: 1 }));
  });

  it('gives up with PROCESS_EXITED, naming EADDRINUSE, when every port it tries is taken before the bind', async () => {
    const dir = await stateDir('stolen-always');
    const { backend, stolen } = racingBackend(dir, 100);
    const provider = createLocalProvider(
      { stateDir: dir, engine: 'node', portRange: RANGE },
      { backend, name: 'local-failures' },
    );
    const req = makeRequest();
    const err = await provider.create(req).catch((e: unknown) => e);
    expect(isTransient(err)).toBe(true);
    expect((err as ProviderError).code).toBe(LocalErrorCode.ProcessExited);
    expect((err as ProviderError).provider).toBe('local-failures');
    // The error carries the end of the runner's stderr, which names the cause.
    expect((err as Error).message).toContain('EADDRINUSE');
    // A bounded number of ports, each a different one.
    expect(stolen.length).toBe(4);
    expect(new Set(stolen).size).toBe(4);
    expect((await provider.get(`local/${req.name}`)).state).toBe(InstanceState.Stopped);
  });

  it('reports no free port in the range as QuotaExceeded NO_FREE_PORT', async () => {
    const dir = await stateDir('full');
    const provider = createLocalProvider({
      stateDir: dir,
      engine: 'node',
      portRange: { min: 23060, max: 23061 },
    });
    await hold(23060);
    await hold(23061);
    const err = await provider.create(makeRequest()).catch((e: unknown) => e);
    expect(ProviderError.isInstance(err) && err.kind).toBe('QuotaExceeded');
    expect((err as ProviderError).code).toBe(LocalErrorCode.NoFreePort);
    expect((err as Error).message).toContain('23060-23061');
  });

  it('refuses engine squid with a squidPath that does not exist as Permanent ENGINE_UNAVAILABLE', async () => {
    const dir = await stateDir('nosquid');
    const provider = createLocalProvider({
      stateDir: dir,
      engine: 'squid',
      squidPath: '/nonexistent/sbin/squid',
      portRange: RANGE,
    });
    const checker = provider;
    const err = await provider.create(makeRequest()).catch((e: unknown) => e);
    expect(isPermanent(err)).toBe(true);
    expect((err as ProviderError).code).toBe(LocalErrorCode.EngineUnavailable);
    expect((err as Error).message).toContain('/nonexistent/sbin/squid');
    const [r] = await checker.check();
    expect(r).toMatchObject({ ready: false, reason: 'EngineUnavailable' });
    expect(r!.message).toContain('/nonexistent/sbin/squid');
  });

  it('reports a state directory that cannot be created as StateDirUnwritable', async () => {
    const dir = await stateDir('blocked');
    const file = join(dir, 'a-file');
    await writeFile(file, 'not a directory');
    const checker = createLocalProvider({
      stateDir: join(file, 'state'),
      engine: 'node',
      portRange: RANGE,
    });
    const [r] = await checker.check();
    expect(r).toMatchObject({ ready: false, reason: 'StateDirUnwritable' });
    expect(r!.details.stateDir).toBe(join(file, 'state'));
  });

  it('rejects bad requests as Permanent INVALID_REQUEST naming the value, before touching the host', async () => {
    const dir = await stateDir('bad');
    const provider = createLocalProvider({ stateDir: dir, engine: 'node', portRange: RANGE });
    for (const [over, shown] of [
      [{ name: '../etc' }, '"../etc"'],
      [{ port: 0 }, '0'],
      [{ port: 1.5 }, '1.5'],
    ] as const) {
      const err = await provider.create(makeRequest(over)).catch((e: unknown) => e);
      expect((err as ProviderError).code).toBe(ErrorCode.InvalidRequest);
      expect((err as Error).message).toContain(shown);
    }
    expect(await provider.listByTag()).toEqual([]);
  });

  it('rejects an invalid config naming the field', () => {
    expect(() => createLocalProvider({ stateDir: '/x', portRange: { min: 5, max: 4 } })).toThrow(
      /portRange.*min 5 must be <= max 4/,
    );
    expect(() => createLocalProvider({ stateDir: '/x', bindAddress: 'localhost' })).toThrow(
      /bindAddress.*"localhost"/,
    );
  });
});
