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
import { KEEPALIVE_PROGRAM, MessageType, REMOTE_PROGRAM } from './constants.js';
import { ErrorNumber } from './error-numbers.js';
import {
  CallTimeoutError,
  ConnectionClosedError,
  LibvirtError,
  ProtocolError,
  UnsupportedAuthError,
} from './errors.js';
import { Procedure } from './procedures.js';
import { connectTcp, connectUnix } from './transport-net.js';
import { XdrReader, XdrWriter } from './xdr.js';

const servers: FakeServer[] = [];
const clients: LibvirtClient[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) c.destroy();
  for (const s of servers.splice(0)) await s.close();
});

async function setup(
  handler: (call: FakePacket, peer: FakePeer) => void,
  options: Parameters<typeof connectUnix>[1] = {},
): Promise<{ client: LibvirtClient; server: FakeServer }> {
  const server = await startFakeServer(handshakeThen(handler));
  servers.push(server);
  const client = await connectUnix(server.path, options);
  clients.push(client);
  return { client, server };
}

const hostnameReply = (name: string) => new XdrWriter().string(name).finish();
const ignore = () => undefined;

describe('handshake', () => {
  it('sends AUTH_LIST, then CONNECT_OPEN with the URI and flags', async () => {
    const { server } = await setup(ignore, { uri: 'test:///default', flags: 1 });
    const calls = server.peers[0]?.received ?? [];
    expect(calls.map((c) => c.proc)).toEqual([Procedure.AUTH_LIST, Procedure.CONNECT_OPEN]);
    const r = new XdrReader(calls[1]?.payload as Buffer);
    expect(r.optionalString()).toBe('test:///default');
    expect(r.uint()).toBe(1);
    expect(calls.map((c) => c.serial)).toEqual([1, 2]);
  });

  it('calls AUTH_POLKIT when the daemon asks for polkit', async () => {
    const server = await startFakeServer((call, peer) => {
      if (call.proc === Procedure.AUTH_LIST)
        peer.reply(call, new XdrWriter().array([2], 20, (w, v) => w.int(v)).finish());
      else if (call.proc === Procedure.AUTH_POLKIT) peer.reply(call, new XdrWriter().int(1).finish());
      else peer.reply(call);
    });
    servers.push(server);
    const client = await connectUnix(server.path);
    clients.push(client);
    expect(server.peers[0]?.received.map((c) => c.proc)).toEqual([66, 70, 1]);
  });

  it('rejects SASL-only daemons with UnsupportedAuthError and closes the socket', async () => {
    const server = await startFakeServer((call, peer) => {
      peer.reply(call, new XdrWriter().array([1], 20, (w, v) => w.int(v)).finish());
    });
    servers.push(server);
    const err = await connectUnix(server.path).catch((e) => e);
    expect(UnsupportedAuthError.isInstance(err)).toBe(true);
    expect(err.message).toMatch(/SASL/);
  });

  it('reports a failed CONNECT_OPEN as a LibvirtError', async () => {
    const server = await startFakeServer((call, peer) => {
      if (call.proc === Procedure.AUTH_LIST)
        peer.reply(call, new XdrWriter().array([0], 20, (w, v) => w.int(v)).finish());
      else peer.replyError(call, { code: 39, domain: 7, message: 'authentication required' });
    });
    servers.push(server);
    const err = await connectUnix(server.path).catch((e) => e);
    expect(LibvirtError.isInstance(err)).toBe(true);
    expect(err.codeName).toBe('VIR_ERR_RPC');
  });
});

describe('transports', () => {
  it('connectTcp dials host:port and runs the handshake', async () => {
    const server = await startFakeServer(
      handshakeThen((call, peer) => peer.reply(call, hostnameReply('tcp-host'))),
      { tcp: true },
    );
    servers.push(server);
    const client = await connectTcp('127.0.0.1', server.port);
    clients.push(client);
    expect(await client.connectGetHostname()).toBe('tcp-host');
  });

  it('connectTcp reports a refused port clearly', async () => {
    const server = await startFakeServer(ignore, { tcp: true });
    const port = server.port;
    await server.close();
    const err = await connectTcp('127.0.0.1', port).catch((e) => e);
    expect(err.message).toBe(`connection refused by 127.0.0.1:${port}`);
  });

  it('an abort during the handshake returns promptly with the reason', async () => {
    const server = await startFakeServer(ignore);
    servers.push(server);
    const ctrl = new AbortController();
    setTimeout(() => ctrl.abort(new Error('gave up')), 30);
    const t0 = Date.now();
    const err = await connectUnix(server.path, { signal: ctrl.signal }).catch((e) => e);
    expect(err.message).toBe('gave up');
    expect(Date.now() - t0).toBeLessThan(1000);
    await expect(
      connectUnix(server.path, { signal: AbortSignal.abort(new Error('already')) }),
    ).rejects.toThrow('already');
  });

  it('a connect timeout covers a daemon that never answers the handshake', async () => {
    const server = await startFakeServer(ignore);
    servers.push(server);
    const err = await connectUnix(server.path, { timeoutMs: 50 }).catch((e) => e);
    expect(err.message).toMatch(/timed out after 50 ms/);
  });
});

describe('calls', () => {
  it('matches out-of-order replies by serial', async () => {
    const held: FakePacket[] = [];
    const { client } = await setup((call, peer) => {
      held.push(call);
      if (held.length === 5) for (const c of held.reverse()) peer.reply(c, hostnameReply(`host-${c.serial}`));
    });
    const results = await Promise.all([1, 2, 3, 4, 5].map(() => client.connectGetHostname()));
    expect(results).toEqual(['host-3', 'host-4', 'host-5', 'host-6', 'host-7']);
  });

  it('decodes server errors with every field, the numeric code and its name', async () => {
    const { client } = await setup((call, peer) =>
      peer.replyError(call, {
        code: ErrorNumber.VIR_ERR_NO_DOMAIN,
        domain: 10,
        message: "Domain not found: no domain with matching name 'x'",
        str1: 'Domain not found: %s',
        str2: "no domain with matching name 'x'",
        str3: 'three',
        int1: -1,
        int2: 7,
        dom: { name: 'd', uuid: '00112233-4455-6677-8899-aabbccddeeff', id: 3 },
        net: { name: 'n', uuid: 'ffeeddcc-bbaa-9988-7766-554433221100' },
      }),
    );
    const err = await client.domainLookupByName('x').catch((e) => e);
    expect(LibvirtError.isInstance(err)).toBe(true);
    expect(err).toMatchObject({
      code: 42,
      codeName: 'VIR_ERR_NO_DOMAIN',
      domain: 10,
      domainName: 'VIR_FROM_QEMU',
      level: 2,
      message: "Domain not found: no domain with matching name 'x'",
      str1: 'Domain not found: %s',
      str2: "no domain with matching name 'x'",
      str3: 'three',
      int1: -1,
      int2: 7,
      dom: { name: 'd', uuid: '00112233-4455-6677-8899-aabbccddeeff', id: 3 },
      net: { name: 'n', uuid: 'ffeeddcc-bbaa-9988-7766-554433221100' },
      procedure: 'DOMAIN_LOOKUP_BY_NAME',
    });
    expect(client.isOpen).toBe(true);
  });

  it('kills the connection on an oversized packet and fails the pending call', async () => {
    const { client } = await setup((_call, peer) => {
      const bad = Buffer.alloc(28);
      bad.writeUInt32BE(33554437, 0);
      peer.socket.write(bad);
    });
    const err = await client.connectGetHostname().catch((e) => e);
    expect(ConnectionClosedError.isInstance(err)).toBe(true);
    expect(err.message).toMatch(/packet length 33554437 exceeds the maximum/);
    expect(ProtocolError.isInstance(err.cause)).toBe(true);
    expect(client.isOpen).toBe(false);
  });

  it('kills the connection on a reply with an unknown serial', async () => {
    const { client } = await setup((call, peer) => peer.send({ proc: call.proc, serial: 999 }));
    const err = await client.connectGetHostname().catch((e) => e);
    expect(ConnectionClosedError.isInstance(err)).toBe(true);
    expect(err.message).toMatch(/serial 999/);
  });

  it('fails an undecodable reply without killing the connection', async () => {
    let n = 0;
    const { client } = await setup((call, peer) => {
      n++;
      if (n === 1) peer.reply(call, Buffer.from([0, 0, 0]));
      else peer.reply(call, hostnameReply('ok'));
    });
    const err = await client.connectGetHostname().catch((e) => e);
    expect(ProtocolError.isInstance(err)).toBe(true);
    expect(await client.connectGetHostname()).toBe('ok');
  });

  it('fails in-flight calls when the server drops the connection mid-call', async () => {
    const { client } = await setup((_call, peer) => peer.socket.destroy());
    const err = await client.connectGetHostname().catch((e) => e);
    expect(ConnectionClosedError.isInstance(err)).toBe(true);
    const again = await client.connectGetHostname().catch((e) => e);
    expect(ConnectionClosedError.isInstance(again)).toBe(true);
  });

  it('abandoning one call marks the connection dead and fails the others', async () => {
    const { client } = await setup(ignore);
    const ctrl = new AbortController();
    const a = client.connectGetHostname({ signal: ctrl.signal }).catch((e) => e);
    const b = client.connectGetHostname().catch((e) => e);
    const c = client.connectGetLibVersion().catch((e) => e);
    await new Promise((r) => setTimeout(r, 20));
    ctrl.abort(new Error('caller gave up'));
    expect((await a).message).toBe('caller gave up');
    const [eb, ec] = [await b, await c];
    expect(ConnectionClosedError.isInstance(eb)).toBe(true);
    expect(ConnectionClosedError.isInstance(ec)).toBe(true);
    expect(eb.message).toMatch(/CONNECT_GET_HOSTNAME \(serial 3\) was abandoned/);
    expect(client.isOpen).toBe(false);
  });

  it('an already-aborted signal fails the call without sending it or harming the connection', async () => {
    const { client, server } = await setup((call, peer) => peer.reply(call, hostnameReply('h')));
    const err = await client
      .connectGetHostname({ signal: AbortSignal.abort(new Error('nope')) })
      .catch((e) => e);
    expect(err.message).toBe('nope');
    expect(await client.connectGetHostname()).toBe('h');
    expect(server.peers[0]?.received.length).toBe(3);
  });

  it('a per-call timeout fails that call with CallTimeoutError and the others with ConnectionClosedError', async () => {
    const { client } = await setup(ignore);
    const slow = client.connectGetHostname({ timeoutMs: 30 }).catch((e) => e);
    const other = client.connectGetHostname().catch((e) => e);
    const e1 = await slow;
    expect(CallTimeoutError.isInstance(e1)).toBe(true);
    expect(e1.message).toMatch(/CONNECT_GET_HOSTNAME \(serial 3\) timed out after 30 ms/);
    expect(ConnectionClosedError.isInstance(await other)).toBe(true);
  });

  it('calls that complete before their timeout leave the connection healthy', async () => {
    const { client } = await setup((call, peer) => peer.reply(call, hostnameReply('h')));
    expect(await client.connectGetHostname({ timeoutMs: 1000 })).toBe('h');
    expect(client.isOpen).toBe(true);
  });

  it('reports every call to onCall with name, serial, duration and error', async () => {
    const events: CallEvent[] = [];
    const { client } = await setup(
      (call, peer) => {
        if (call.proc === Procedure.CONNECT_GET_HOSTNAME) peer.reply(call, hostnameReply('h'));
        else peer.replyError(call, { code: 42, message: 'gone' });
      },
      { onCall: (e) => events.push(e) },
    );
    await client.connectGetHostname();
    await client.domainLookupByName('x').catch(() => undefined);
    expect(events.map((e) => [e.procedure, e.proc, e.serial])).toEqual([
      ['AUTH_LIST', 66, 1],
      ['CONNECT_OPEN', 1, 2],
      ['CONNECT_GET_HOSTNAME', 59, 3],
      ['DOMAIN_LOOKUP_BY_NAME', 23, 4],
    ]);
    expect(events[3]?.error && LibvirtError.isInstance(events[3].error) && events[3].error.code).toBe(42);
    expect(events.every((e) => e.durationMs >= 0)).toBe(true);
    expect(events[2]?.error).toBeUndefined();
  });

  it('rejects bad arguments with an error naming the value, without killing the connection', async () => {
    const { client } = await setup((call, peer) => peer.reply(call, hostnameReply('h')));
    const dom = { name: 'd', uuid: 'not-a-uuid', id: -1 };
    await expect(client.domainGetState(dom)).rejects.toThrow(/invalid uuid "not-a-uuid"/);
    await expect(
      client.domainDestroyFlags({ ...dom, uuid: '00112233445566778899aabbccddeeff' }, -1),
    ).rejects.toThrow(/flags: -1 is not a 32-bit unsigned integer/);
    expect(await client.connectGetHostname()).toBe('h');
  });

  it('close() sends CONNECT_CLOSE and later calls fail with ConnectionClosedError', async () => {
    const { client, server } = await setup(ignore);
    await client.close();
    expect(server.peers[0]?.received.at(-1)?.proc).toBe(Procedure.CONNECT_CLOSE);
    expect(client.isOpen).toBe(false);
    expect(client.closeReason?.message).toMatch(/closed by the client/);
    const err = await client.connectGetHostname().catch((e) => e);
    expect(ConnectionClosedError.isInstance(err)).toBe(true);
  });

  it('destroy(reason) fails in-flight calls with that reason', async () => {
    const { client } = await setup(ignore);
    const p = client.connectGetHostname().catch((e) => e);
    client.destroy('shutting down');
    const err = await p;
    expect(ConnectionClosedError.isInstance(err)).toBe(true);
    expect(err.message).toBe('shutting down');
  });
});

describe('keepalive', () => {
  it('answers a server PING with a PONG', async () => {
    const { server } = await setup(ignore);
    const peerRef = server.peers[0];
    peerRef?.ping();
    await new Promise((r) => setTimeout(r, 50));
    const pong = peerRef?.received.find((p) => p.prog === KEEPALIVE_PROGRAM);
    expect(pong).toMatchObject({
      prog: KEEPALIVE_PROGRAM,
      vers: 1,
      proc: 2,
      type: MessageType.MESSAGE,
      serial: 0,
      status: 0,
    });
    expect(pong?.payload.length).toBe(0);
  });

  it('with keepalive on, advertises it and declares a silent peer dead', async () => {
    const { client, server } = await setup(
      (call, peer) => {
        if (call.proc === Procedure.CONNECT_SUPPORTS_FEATURE)
          peer.reply(call, new XdrWriter().int(1).finish());
      },
      { keepalive: { intervalMs: 20, count: 2 } },
    );
    const feature = server.peers[0]?.received.find((p) => p.proc === Procedure.CONNECT_SUPPORTS_FEATURE);
    expect(new XdrReader(feature?.payload as Buffer).int()).toBe(10);
    const reason = await client.whenClosed();
    expect(reason.message).toMatch(/did not answer 2 keepalive PINGs/);
    const pings = () =>
      server.peers[0]?.received.filter((p) => p.prog === KEEPALIVE_PROGRAM && p.proc === 1) ?? [];
    // The server may read the last PING after the client gave up; give it a moment.
    for (let i = 0; i < 100 && pings().length < 2; i++) await new Promise((r) => setTimeout(r, 10));
    expect(pings().length).toBe(2);
  });

  it('stays up while the peer answers PINGs', async () => {
    const { client } = await setup(
      (call, peer) => {
        if (call.prog === KEEPALIVE_PROGRAM)
          peer.send({ prog: KEEPALIVE_PROGRAM, proc: 2, serial: 0, type: 2 });
        else peer.reply(call, new XdrWriter().int(1).finish());
      },
      { keepalive: { intervalMs: 40, count: 5 } },
    );
    await new Promise((r) => setTimeout(r, 700));
    expect(client.isOpen).toBe(true);
  });
});

describe('prompt ACKs', () => {
  const pongs = (server: FakeServer) =>
    server.peers[0]?.received.filter((p) => p.prog === KEEPALIVE_PROGRAM && p.proc === 2).length ?? 0;
  const settle = () => new Promise((r) => setTimeout(r, 30));

  it('writes a PONG after a reply that leaves calls in flight, and none once all are answered', async () => {
    const held: FakePacket[] = [];
    let peerRef: FakePeer | undefined;
    const { client, server } = await setup(
      (call, peer) => {
        if (call.prog !== REMOTE_PROGRAM) return;
        peerRef = peer;
        if (held.length === 0 && call.serial === 3) peer.reply(call, hostnameReply('first'));
        else held.push(call);
      },
      { promptAcks: true },
    );
    const calls = [client.connectGetHostname(), client.connectGetHostname(), client.connectGetHostname()];
    await calls[0];
    for (let i = 0; i < 100 && pongs(server) === 0; i++) await settle();
    expect(pongs(server)).toBe(1);
    expect(client.connection.ackNudges).toBe(1);
    for (const call of held.splice(0)) peerRef?.reply(call, hostnameReply('later'));
    await Promise.all(calls);
    await settle();
    // The last reply left nothing in flight: no nudge for it.
    expect(client.connection.ackNudges).toBeLessThanOrEqual(2);
    const after = client.connection.ackNudges;
    await settle();
    expect(client.connection.ackNudges).toBe(after);
  });

  it('sends no PONG when the reply is followed by a call (the call carries the ACK)', async () => {
    let heldCall: FakePacket | undefined;
    const { client, server } = await setup(
      (call, peer) => {
        if (call.prog !== REMOTE_PROGRAM) return;
        if (heldCall === undefined) heldCall = call;
        else peer.reply(call, hostnameReply('h'));
      },
      { promptAcks: true },
    );
    const held = client.connectGetHostname().catch((e) => e);
    for (let i = 0; i < 5; i++) await client.connectGetHostname();
    await settle();
    // Only the last reply of the loop is followed by silence while a call is still in flight.
    expect(client.connection.ackNudges).toBe(1);
    for (let i = 0; i < 100 && pongs(server) === 0; i++) await settle();
    expect(pongs(server)).toBe(1);
    client.destroy();
    await held;
  });

  it('nudges at most once a millisecond while a long burst of replies arrives', async () => {
    const held: FakePacket[] = [];
    let peerRef: FakePeer | undefined;
    const { client } = await setup(
      (call, peer) => {
        if (call.prog !== REMOTE_PROGRAM) return;
        peerRef = peer;
        held.push(call);
      },
      { promptAcks: true },
    );
    const calls = Array.from({ length: 60 }, () => client.connectGetHostname());
    for (let i = 0; i < 200 && held.length < 60; i++) await settle();
    expect(held).toHaveLength(60);
    const started = performance.now();
    // One reply per turn of the event loop, so the client sees many separate reads.
    for (const call of held) {
      peerRef?.reply(call, hostnameReply('h'));
      await new Promise((r) => setImmediate(r));
    }
    await Promise.all(calls);
    const elapsed = performance.now() - started;
    await settle();
    expect(client.connection.ackNudges).toBeGreaterThan(0);
    expect(client.connection.ackNudges).toBeLessThanOrEqual(Math.ceil(elapsed) + 1);
  });

  it('is off unless asked for', async () => {
    let heldCall: FakePacket | undefined;
    const { client, server } = await setup((call, peer) => {
      if (call.prog !== REMOTE_PROGRAM) return;
      if (heldCall === undefined) heldCall = call;
      else peer.reply(call, hostnameReply('h'));
    });
    const held = client.connectGetHostname().catch((e) => e);
    await client.connectGetHostname();
    await settle();
    expect(client.connection.ackNudges).toBe(0);
    expect(pongs(server)).toBe(0);
    client.destroy();
    await held;
  });
});
