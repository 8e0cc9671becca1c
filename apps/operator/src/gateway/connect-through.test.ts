import { randomBytes } from 'node:crypto';
import { type AddressInfo, createServer, type Server, type Socket } from 'node:net';
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { connectThrough, MemberConnectError } from './connect-through.js';

let server: Server | undefined;
afterEach(() => new Promise<void>((r) => (server ? server.close(() => r()) : r())));

/** A member that answers CONNECT with `answer`, then sends `pieces` one at a time. */
async function member(answer: string, pieces: Buffer[] = []) {
  const srv = createServer((s: Socket) => {
    s.once('data', async () => {
      s.write(answer);
      for (const p of pieces) {
        s.write(p);
        await new Promise((r) => setImmediate(r));
      }
      s.end();
    });
  });
  server = srv;
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  return { name: 'm', host: '127.0.0.1', port: (srv.address() as AddressInfo).port };
}

describe('connectThrough', () => {
  it('relays every piece intact to a slow client that queues what it is given', async () => {
    const pieces = Array.from({ length: 400 }, () => randomBytes(1000));
    const m = await member('HTTP/1.1 200 Connection Established\r\n\r\nrest', pieces);
    const a = await connectThrough(m, 'example.com:443', { timeoutMs: 5000 });
    expect(a.status).toBe(200);
    // What came with the head (the start of the tunnel) is handed back with it.
    expect(a.rest.subarray(0, 4).toString()).toBe('rest');
    // Keeps the very chunks it is handed and acknowledges them late: a read buffer reused while a
    // write still holds it would show up here as changed bytes.
    const kept: Buffer[] = [];
    const client = new Writable({
      highWaterMark: 64 * 1024,
      write(chunk: Buffer, _enc, cb) {
        kept.push(chunk);
        setTimeout(cb, 1);
      },
    });
    const ended = new Promise<void>((r) => a.socket.once('end', () => r()));
    a.relayTo(client);
    await ended;
    await new Promise<void>((r) => client.end(r));
    expect(kept.length).toBeGreaterThan(10);
    const all = Buffer.concat([Buffer.from('rest'), ...pieces]);
    expect(Buffer.concat([a.rest, ...kept]).equals(all)).toBe(true);
    a.socket.destroy();
  });

  it('passes on a refusal with its status, and names a member that answers garbage', async () => {
    const refused = await connectThrough(await member('HTTP/1.1 403 Forbidden\r\n\r\n'), 'x:1', {
      timeoutMs: 5000,
    });
    expect(refused.status).toBe(403);
    refused.socket.destroy();
    await new Promise<void>((r) => server?.close(() => r()));
    server = undefined;
    const err = await connectThrough(await member('SSH-2.0-nope\r\n\r\n'), 'x:1', { timeoutMs: 5000 }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(MemberConnectError);
    expect(err).toMatchObject({ code: 'EPROTO', member: 'm' });
  });
});
