import { connect, createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { type DelayRelay, delayRelay } from './delay-relay.js';
import { TestEnvError } from './errors.js';

let cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.reverse()) await c();
  cleanups = [];
});

/** An upstream that echoes every byte and, on the client's FIN, sends "bye" and ends. */
async function echoServer(): Promise<Server> {
  const server = createServer({ allowHalfOpen: true }, (s) => {
    s.on('error', () => undefined);
    s.on('data', (c) => s.write(c));
    s.on('end', () => s.end('bye'));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  cleanups.push(() => new Promise((r) => server.close(() => r())));
  return server;
}

function portOf(server: Server): number {
  const a = server.address();
  return typeof a === 'object' && a ? a.port : 0;
}

async function relayTo(server: Server, delayMs: number): Promise<DelayRelay> {
  const relay = await delayRelay({ target: { host: '127.0.0.1', port: portOf(server) }, delayMs });
  cleanups.push(() => relay.close());
  return relay;
}

function open(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const s = connect({ port, host: '127.0.0.1', allowHalfOpen: true });
    s.once('connect', () => resolve(s));
    s.once('error', reject);
  });
}

function readAll(s: Socket): Promise<Buffer> {
  const parts: Buffer[] = [];
  s.on('data', (c: Buffer) => parts.push(c));
  return new Promise((resolve, reject) => {
    s.once('end', () => resolve(Buffer.concat(parts)));
    s.once('error', reject);
  });
}

describe('delayRelay', () => {
  it('relays many small writes in order both ways and passes the half-close through', async () => {
    const relay = await relayTo(await echoServer(), 5);
    expect(relay.host).toBe('127.0.0.1');
    const s = await open(relay.port);
    const all = readAll(s);
    const sent: Buffer[] = [];
    for (let i = 0; i < 500; i++) {
      const b = Buffer.from(`${i};`);
      sent.push(b);
      s.write(b);
      if (i % 50 === 0) await new Promise((r) => setTimeout(r, 1));
    }
    s.end();
    const got = await all;
    expect(got.toString()).toBe(`${Buffer.concat(sent).toString()}bye`);
  });

  it('carries a large payload byte-exactly (back-pressure path)', async () => {
    const relay = await relayTo(await echoServer(), 1);
    const s = await open(relay.port);
    const all = readAll(s);
    const payload = Buffer.alloc(16 * 1024 * 1024);
    for (let i = 0; i < payload.length; i += 4) payload.writeUInt32BE(i, i);
    s.end(payload);
    const got = await all;
    expect(got.length).toBe(payload.length + 3);
    expect(got.subarray(0, payload.length).equals(payload)).toBe(true);
  });

  it('holds data back by at least the delay in each direction', async () => {
    const relay = await relayTo(await echoServer(), 150);
    const s = await open(relay.port);
    const started = Date.now();
    const first = new Promise<void>((r) => s.once('data', () => r()));
    s.write('x');
    await first;
    // Lower bound only: one hop out plus one hop back.
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    s.destroy();
  });

  it('close() cuts relayed connections', async () => {
    const relay = await relayTo(await echoServer(), 0);
    const s = await open(relay.port);
    const closed = new Promise<void>((r) => s.once('close', () => r()));
    s.on('error', () => undefined);
    await relay.close();
    await closed;
  });

  it('rejects bad options naming the value', async () => {
    const bad = delayRelay({ target: { host: '127.0.0.1', port: 1 }, delayMs: -1 });
    await expect(bad).rejects.toSatisfy(
      (e: unknown) => TestEnvError.isInstance(e) && e.code === 'INVALID_ARGUMENT',
    );
    await expect(delayRelay({ target: { host: '127.0.0.1', port: 1 }, delayMs: -1 })).rejects.toThrow(/-1/);
    await expect(delayRelay({ target: { host: '127.0.0.1', port: 70000 }, delayMs: 1 })).rejects.toThrow(
      /70000/,
    );
  });
});
