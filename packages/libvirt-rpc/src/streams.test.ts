import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type FakePacket,
  type FakePeer,
  type FakeServer,
  handshakeThen,
  startFakeServer,
} from '../test/fake-libvirtd.js';
import type { LibvirtClient } from './client.js';
import type { CallEvent } from './connection.js';
import { MessageStatus, MessageType } from './constants.js';
import { ConnectionClosedError, LibvirtError } from './errors.js';
import { Procedure } from './procedures.js';
import type { StorageVol } from './remote-types.js';
import { connectUnix } from './transport-net.js';
import { XdrReader, XdrWriter } from './xdr.js';

const servers: FakeServer[] = [];
const clients: LibvirtClient[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) c.destroy();
  for (const s of servers.splice(0)) await s.close();
});

const vol: StorageVol = { pool: 'p', name: 'v', key: '/p/v' };
const STREAM = MessageType.STREAM;
const { OK, ERROR, CONTINUE } = MessageStatus;

async function setup(
  handler: (call: FakePacket, peer: FakePeer) => void,
  onCall?: (e: CallEvent) => void,
  extra: Parameters<typeof connectUnix>[1] = {},
) {
  const server = await startFakeServer(handshakeThen(handler));
  servers.push(server);
  const client = await connectUnix(server.path, { ...(onCall ? { onCall } : {}), ...extra });
  clients.push(client);
  return { client, server, peer: () => server.peers[0] as FakePeer };
}

const streamPackets = (peer: FakePeer, serial: number) =>
  peer.received.filter((p) => p.type === STREAM && p.serial === serial);

async function collect(r: Readable): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const c of r) parts.push(c as Buffer);
  return Buffer.concat(parts);
}

describe('upload', () => {
  it('waits for the reply, sends non-empty CONTINUE chunks, then finishes with the OK exchange', async () => {
    const data = randomBytes(10_000);
    let replySentAt = -1;
    const events: CallEvent[] = [];
    const { client, peer } = await setup(
      (call, p) => {
        if (call.proc === Procedure.STORAGE_VOL_UPLOAD && call.type === MessageType.CALL) {
          const args = new XdrReader(call.payload);
          expect([
            args.string(),
            args.string(),
            args.string(),
            args.uhyper(),
            args.uhyper(),
            args.uint(),
          ]).toEqual(['p', 'v', '/p/v', 5n, 10_000n, 0]);
          setTimeout(() => {
            replySentAt = p.received.length;
            p.reply(call);
          }, 30);
        } else if (call.type === STREAM && call.status === OK) {
          p.send({ proc: call.proc, serial: call.serial, type: STREAM, status: OK });
        }
      },
      (e) => events.push(e),
    );
    const source = Readable.from([data.subarray(0, 3000), data.subarray(3000, 3001), data.subarray(3001)]);
    await client.storageVolUpload(vol, source, { offset: 5, length: 10_000, chunkSize: 4096 });
    const packets = streamPackets(peer(), 3);
    const firstStreamIndex = peer().received.indexOf(packets[0] as FakePacket);
    expect(firstStreamIndex).toBeGreaterThanOrEqual(replySentAt);
    const data2 = packets.filter((p) => p.status === CONTINUE);
    expect(data2.map((p) => p.payload.length)).toEqual([4096, 4096, 1808]);
    expect(Buffer.concat(data2.map((p) => p.payload)).equals(data)).toBe(true);
    expect(packets.at(-1)).toMatchObject({ status: OK, proc: 208 });
    expect(packets.at(-1)?.payload.length).toBe(0);
    expect(events.filter((e) => e.procedure === 'STORAGE_VOL_UPLOAD')).toHaveLength(1);
  });

  it('never sends an empty CONTINUE for empty source chunks', async () => {
    const { client, peer } = await setup((call, p) => {
      if (call.type === MessageType.CALL) p.reply(call);
      else if (call.status === OK) p.send({ proc: call.proc, serial: call.serial, type: STREAM, status: OK });
    });
    await client.storageVolUpload(vol, [new Uint8Array(0), Buffer.from('ab'), new Uint8Array(0)]);
    const packets = streamPackets(peer(), 3);
    expect(packets.map((p) => [p.status, p.payload.length])).toEqual([
      [CONTINUE, 2],
      [OK, 0],
    ]);
  });

  it('does not stream anything when the call itself fails', async () => {
    const { client, peer } = await setup((call, p) => p.replyError(call, { code: 50, message: 'no vol' }));
    const err = await client.storageVolUpload(vol, [Buffer.from('x')]).catch((e) => e);
    expect(LibvirtError.isInstance(err) && err.codeName).toBe('VIR_ERR_NO_STORAGE_VOL');
    expect(streamPackets(peer(), 3)).toHaveLength(0);
    expect(client.isOpen).toBe(true);
  });

  it('stops on a server STREAM/ERROR, ignores the late OK and keeps the connection', async () => {
    const { client } = await setup((call, p) => {
      if (call.proc === Procedure.CONNECT_GET_HOSTNAME)
        return p.reply(call, new XdrWriter().string('h').finish());
      if (call.type === MessageType.CALL) return p.reply(call);
      if (call.status === CONTINUE && streamPackets(p, call.serial).length === 1) {
        p.replyError(call, { code: 38, message: 'cannot write to stream: No space left on device' }, STREAM);
        p.send({ proc: call.proc, serial: call.serial, type: STREAM, status: OK });
      }
    });
    async function* endless() {
      for (;;) {
        yield randomBytes(1024);
        await new Promise((r) => setTimeout(r, 1));
      }
    }
    const err = await client.storageVolUpload(vol, endless(), { chunkSize: 1024 }).catch((e) => e);
    expect(LibvirtError.isInstance(err) && err.code).toBe(38);
    expect(await client.connectGetHostname()).toBe('h');
  });

  it('aborts with an empty STREAM/ERROR when the source fails, and keeps the connection', async () => {
    const { client, peer } = await setup((call, p) => {
      if (call.type === MessageType.CALL) p.reply(call);
      else if (call.status === ERROR)
        p.send({ proc: call.proc, serial: call.serial, type: STREAM, status: OK });
    });
    async function* failing() {
      yield Buffer.alloc(100);
      throw new Error('disk read failed');
    }
    const err = await client.storageVolUpload(vol, failing(), { chunkSize: 100 }).catch((e) => e);
    expect(err.message).toBe('disk read failed');
    const packets = streamPackets(peer(), 3);
    expect(packets.map((p) => [p.status, p.payload.length])).toEqual([
      [CONTINUE, 100],
      [ERROR, 0],
    ]);
    expect(client.isOpen).toBe(true);
  });

  it('stops pulling from the source while the daemon does not read (bounded buffering)', async () => {
    const { client, peer } = await setup((call, p) => {
      if (call.type === MessageType.CALL && call.proc === Procedure.STORAGE_VOL_UPLOAD) {
        p.reply(call);
        p.socket.pause();
      }
    });
    let pulled = 0;
    async function* endless() {
      for (;;) {
        pulled += 64 * 1024;
        yield Buffer.alloc(64 * 1024);
      }
    }
    const upload = client.storageVolUpload(vol, endless(), { maxBufferedBytes: 1024 * 1024 }).catch((e) => e);
    await new Promise((r) => setTimeout(r, 300));
    const stalledAt = pulled;
    await new Promise((r) => setTimeout(r, 200));
    // One window plus what the kernel socket buffers hold, not an unbounded amount.
    expect(pulled).toBe(stalledAt);
    expect(pulled).toBeLessThan(8 * 1024 * 1024);
    expect(pulled).toBeGreaterThanOrEqual(1024 * 1024);
    peer().socket.resume();
    client.destroy('test over');
    expect(ConnectionClosedError.isInstance(await upload)).toBe(true);
  });

  it('an aborted signal sends the abort and marks the connection dead', async () => {
    const ctrl = new AbortController();
    const { client, peer } = await setup((call, p) => {
      if (call.type === MessageType.CALL) p.reply(call);
    });
    async function* slow() {
      yield Buffer.alloc(10);
      await new Promise((r) => setTimeout(r, 10_000));
    }
    const pending = client
      .storageVolUpload(vol, slow(), { signal: ctrl.signal, chunkSize: 10 })
      .catch((e) => e);
    await new Promise((r) => setTimeout(r, 50));
    ctrl.abort(new Error('stop'));
    const err = await pending;
    expect(err.message).toBe('stop');
    expect(client.isOpen).toBe(false);
    expect(ConnectionClosedError.isInstance(client.closeReason)).toBe(true);
    await new Promise((r) => setTimeout(r, 20));
    expect(streamPackets(peer(), 3).map((p) => p.status)).toEqual([CONTINUE, ERROR]);
  });
});

describe('download', () => {
  it('delivers data sent in the same write as the reply, and finishes with the OK exchange', async () => {
    const data = randomBytes(5000);
    const { client, peer } = await setup((call, p) => {
      if (call.type === MessageType.CALL) {
        // Reply and data in one socket write: the handler must already be registered.
        const parts = [
          { header: { proc: call.proc, serial: call.serial }, payload: undefined },
          {
            header: { proc: call.proc, serial: call.serial, type: STREAM, status: CONTINUE },
            payload: data.subarray(0, 24),
          },
          {
            header: { proc: call.proc, serial: call.serial, type: STREAM, status: CONTINUE },
            payload: data.subarray(24),
          },
          {
            header: { proc: call.proc, serial: call.serial, type: STREAM, status: CONTINUE },
            payload: undefined,
          },
        ];
        p.socket.cork();
        for (const part of parts) p.send(part.header, part.payload);
        p.socket.uncork();
      } else if (call.type === STREAM && call.status === OK) {
        setTimeout(() => p.send({ proc: call.proc, serial: call.serial, type: STREAM, status: OK }), 20);
      }
    });
    const readable = await client.storageVolDownload(vol);
    const got = await collect(readable);
    expect(got.equals(data)).toBe(true);
    expect(streamPackets(peer(), 3).map((p) => [p.status, p.payload.length])).toEqual([[OK, 0]]);
  });

  it('stops reading the socket while the consumer lags, then delivers everything', async () => {
    const chunk = 64 * 1024;
    const count = 64;
    const data = randomBytes(chunk * count);
    const { client } = await setup((call, p) => {
      if (call.type === MessageType.CALL) {
        p.reply(call);
        for (let i = 0; i < count; i++) {
          p.send(
            { proc: call.proc, serial: call.serial, type: STREAM, status: CONTINUE },
            data.subarray(i * chunk, (i + 1) * chunk),
          );
        }
        p.send({ proc: call.proc, serial: call.serial, type: STREAM, status: CONTINUE });
      } else if (call.status === OK) {
        p.send({ proc: call.proc, serial: call.serial, type: STREAM, status: OK });
      }
    });
    const readable = await client.storageVolDownload(vol, { highWaterMark: chunk });
    await new Promise((r) => setTimeout(r, 100));
    // Back-pressure: far less than the 4 MiB sent is buffered on our side.
    expect(client.connection.transport.isPaused()).toBe(true);
    expect(readable.readableLength).toBeLessThan(chunk * 8);
    expect((await collect(readable)).equals(data)).toBe(true);
  });

  it('a consumer stall does not trip client keepalive (the silence is ours)', async () => {
    const { client } = await setup(
      (call, p) => {
        if (call.proc === Procedure.CONNECT_SUPPORTS_FEATURE)
          return p.reply(call, new XdrWriter().int(1).finish());
        if (call.type === MessageType.CALL) {
          p.reply(call);
          for (let i = 0; i < 64; i++) {
            p.send(
              { proc: call.proc, serial: call.serial, type: STREAM, status: CONTINUE },
              Buffer.alloc(64 * 1024),
            );
          }
        }
      },
      undefined,
      { keepalive: { intervalMs: 20, count: 1 } },
    );
    const readable = await client.storageVolDownload(vol, { highWaterMark: 64 * 1024 });
    await new Promise((r) => setTimeout(r, 300));
    expect(client.connection.transport.isPaused()).toBe(true);
    expect(client.isOpen).toBe(true);
    readable.destroy();
  });

  it('surfaces a STREAM/ERROR as a LibvirtError on the readable', async () => {
    const { client } = await setup((call, p) => {
      if (call.type === MessageType.CALL) {
        p.reply(call);
        p.send({ proc: call.proc, serial: call.serial, type: STREAM, status: CONTINUE }, Buffer.from('abc'));
        p.replyError(call, { code: 38, message: 'read failed' }, STREAM);
      }
    });
    const readable = await client.storageVolDownload(vol);
    const err = await collect(readable).catch((e) => e);
    expect(LibvirtError.isInstance(err) && err.message).toBe('read failed');
    expect(client.isOpen).toBe(true);
  });

  it('destroying the readable early aborts the stream and keeps the connection', async () => {
    const { client, peer } = await setup((call, p) => {
      if (call.proc === Procedure.CONNECT_GET_HOSTNAME)
        return p.reply(call, new XdrWriter().string('h').finish());
      if (call.type === MessageType.CALL) {
        p.reply(call);
        p.send({ proc: call.proc, serial: call.serial, type: STREAM, status: CONTINUE }, Buffer.alloc(100));
      } else if (call.type === STREAM && call.status === ERROR) {
        p.send({ proc: call.proc, serial: call.serial, type: STREAM, status: CONTINUE }, Buffer.alloc(100));
        p.send({ proc: call.proc, serial: call.serial, type: STREAM, status: OK });
      }
    });
    const readable = await client.storageVolDownload(vol);
    for await (const _chunk of readable) break;
    expect(await client.connectGetHostname()).toBe('h');
    expect(streamPackets(peer(), 3).map((p) => [p.status, p.payload.length])).toEqual([[ERROR, 0]]);
  });
});
