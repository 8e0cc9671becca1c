// A scripted in-process libvirtd stand-in speaking the real framing on a unix socket.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  KEEPALIVE_PROGRAM,
  MessageStatus,
  MessageType,
  PACKET_PREFIX_SIZE,
  REMOTE_PROGRAM,
} from '../src/constants.js';
import type { RemoteErrorFields } from '../src/errors.js';
import { PacketFramer } from '../src/framer.js';
import { decodeHeader, encodePacket, type PacketHeader } from '../src/header.js';
import { Procedure } from '../src/procedures.js';
import { writeRemoteError } from '../src/remote-types.js';
import { XdrWriter } from '../src/xdr.js';

export interface FakePacket extends PacketHeader {
  payload: Buffer;
}

export class FakePeer {
  readonly received: FakePacket[] = [];
  constructor(readonly socket: Socket) {}

  send(header: Partial<PacketHeader> & { proc: number; serial: number }, payload?: Uint8Array): void {
    this.socket.write(
      encodePacket(
        {
          prog: REMOTE_PROGRAM,
          vers: 1,
          type: MessageType.REPLY,
          status: MessageStatus.OK,
          ...header,
        },
        payload,
      ),
    );
  }

  reply(call: FakePacket, payload?: Uint8Array): void {
    this.send({ proc: call.proc, serial: call.serial }, payload);
  }

  replyError(
    call: FakePacket,
    fields: Partial<RemoteErrorFields> & { code: number },
    type: number = MessageType.REPLY,
  ): void {
    const w = new XdrWriter();
    writeRemoteError(w, {
      domain: 10,
      message: null,
      level: 2,
      dom: null,
      str1: null,
      str2: null,
      str3: null,
      int1: -1,
      int2: 0,
      net: null,
      ...fields,
    });
    this.send({ proc: call.proc, serial: call.serial, type, status: MessageStatus.ERROR }, w.finish());
  }

  ping(): void {
    this.send({ prog: KEEPALIVE_PROGRAM, proc: 1, serial: 0, type: MessageType.MESSAGE });
  }
}

export type Handler = (call: FakePacket, peer: FakePeer) => void;

/** Answers the handshake; everything else goes to `handler`. */
export function handshakeThen(handler: Handler): Handler {
  return (call, peer) => {
    if (call.prog === REMOTE_PROGRAM && call.type === MessageType.CALL) {
      if (call.proc === Procedure.AUTH_LIST) {
        return peer.reply(call, new XdrWriter().array([0], 20, (w, v) => w.int(v)).finish());
      }
      if (call.proc === Procedure.CONNECT_OPEN) return peer.reply(call);
      if (call.proc === Procedure.CONNECT_CLOSE) {
        peer.reply(call);
        peer.socket.end();
        return;
      }
    }
    handler(call, peer);
  };
}

export interface FakeServer {
  /** Unix socket path (or "" when listening on TCP). */
  path: string;
  /** TCP port when started with `{ tcp: true }`. */
  port: number;
  peers: FakePeer[];
  close(): Promise<void>;
}

export async function startFakeServer(handler: Handler, opts: { tcp?: boolean } = {}): Promise<FakeServer> {
  const dir = mkdtempSync(join(tmpdir(), 'fake-libvirtd-'));
  const path = join(dir, 'sock');
  const peers: FakePeer[] = [];
  const server: Server = createServer((socket) => {
    const peer = new FakePeer(socket);
    peers.push(peer);
    const framer = new PacketFramer();
    socket.on('error', () => undefined);
    socket.on('data', (chunk) => {
      framer.push(chunk, (p) => {
        const packet = { ...decodeHeader(p, 4), payload: Buffer.from(p.subarray(PACKET_PREFIX_SIZE)) };
        peer.received.push(packet);
        handler(packet, peer);
      });
    });
  });
  if (opts.tcp) await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  else await new Promise<void>((resolve) => server.listen(path, resolve));
  const address = server.address();
  return {
    path: opts.tcp ? '' : path,
    port: typeof address === 'object' && address ? address.port : 0,
    peers,
    async close() {
      for (const p of peers) p.socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
