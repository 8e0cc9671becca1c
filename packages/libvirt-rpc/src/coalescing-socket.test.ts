import { createServer, type Server } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { CoalescingSocket } from './coalescing-socket.js';

let server: Server | undefined;
const sockets: CoalescingSocket[] = [];
afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  const s = server;
  server = undefined;
  if (s) await new Promise((r) => s.close(r));
});

async function connected(): Promise<{ sock: CoalescingSocket; received: () => Buffer }> {
  const chunks: Buffer[] = [];
  server = createServer((s) => {
    s.on('data', (d) => chunks.push(d));
    s.on('error', () => undefined);
  });
  await new Promise<void>((r) => server?.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  const sock = new CoalescingSocket();
  sockets.push(sock);
  sock.setNoDelay(true);
  await new Promise<void>((r) => sock.connect(port, '127.0.0.1', r));
  return { sock, received: () => Buffer.concat(chunks) };
}

async function until(cond: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !cond(); i++) await new Promise((r) => setTimeout(r, 5));
}

describe('CoalescingSocket', () => {
  it('hands every write of one synchronous run to a single writev, in order', async () => {
    const { sock, received } = await connected();
    const batches: number[] = [];
    const proto = Object.getPrototypeOf(CoalescingSocket.prototype);
    const writev = proto._writev;
    const write = proto._write;
    sock._writev = function (chunks, cb) {
      batches.push(chunks.length);
      return writev.call(this, chunks, cb);
    };
    sock._write = function (chunk, enc, cb) {
      batches.push(1);
      return write.call(this, chunk, enc, cb);
    };
    const written: string[] = [];
    sock.write(Buffer.from('len.'), () => written.push('a'));
    sock.write(Buffer.from('ciphertext.'), () => written.push('b'));
    sock.write('tag', () => written.push('c'));
    expect(batches).toEqual([]);
    await until(() => received().length === 18);
    expect(received().toString()).toBe('len.ciphertext.tag');
    expect(batches).toEqual([3]);
    expect(written).toEqual(['a', 'b', 'c']);
    // A write in a later turn is flushed on its own, without waiting for more.
    sock.write('!');
    await until(() => received().length === 19);
    expect(received().toString()).toBe('len.ciphertext.tag!');
    expect(batches).toEqual([3, 1]);
    sock.destroy();
  });

  it('flushes every 256 KiB within one synchronous run, so a large burst starts leaving early', async () => {
    const { sock, received } = await connected();
    const batches: number[] = [];
    const proto = Object.getPrototypeOf(CoalescingSocket.prototype);
    const writev = proto._writev;
    sock._writev = function (chunks, cb) {
      batches.push(chunks.length);
      return writev.call(this, chunks, cb);
    };
    const parts = Array.from({ length: 5 }, (_, i) => Buffer.alloc(100 * 1024, i));
    for (const p of parts) sock.write(p);
    // The third write crossed 256 KiB: those three are on their way before the run ends.
    expect(batches).toEqual([3]);
    await until(() => received().length === 500 * 1024);
    expect(received().equals(Buffer.concat(parts))).toBe(true);
    expect(batches).toEqual([3, 2]);
  });
});
