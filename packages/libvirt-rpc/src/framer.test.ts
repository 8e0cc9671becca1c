import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ProtocolError } from './errors.js';
import { PacketFramer } from './framer.js';
import { encodePacket, packetStatus, packetType } from './header.js';

// A recorded-style stream: replies, keepalive, stream data of odd sizes, empty payloads.
function recordedStream(): { stream: Buffer; packets: Buffer[] } {
  const sizes = [0, 4, 8, 262120, 24, 0, 1, 3, 100, 70000, 0, 12];
  const packets = sizes.map((n, i) =>
    encodePacket(
      { prog: 0x20008086, vers: 1, proc: 209, type: i % 2 ? 3 : 1, serial: i + 1, status: 0 },
      randomBytes(n),
    ),
  );
  return { stream: Buffer.concat(packets), packets };
}

function feed(framer: PacketFramer, stream: Buffer, cuts: number[]): Buffer[] {
  const out: Buffer[] = [];
  const points = [...new Set(cuts.map((c) => c % (stream.length + 1)))].sort((a, b) => a - b);
  let prev = 0;
  for (const p of [...points, stream.length]) {
    // Copy each chunk so views handed out cannot alias the test's stream buffer.
    if (p > prev) framer.push(Buffer.from(stream.subarray(prev, p)), (pkt) => out.push(Buffer.from(pkt)));
    prev = Math.max(prev, p);
  }
  return out;
}

describe('PacketFramer on a byte stream recorded from libvirtd 9.0', () => {
  // Everything a client received in one session: handshake, calls, an error reply, 20
  // pipelined replies, an upload's confirmation and a 700,000-byte download.
  const recorded = gunzipSync(
    readFileSync(new URL('../test/fixtures/libvirtd-replies.bin.gz', import.meta.url)),
  );
  const whole: Buffer[] = [];
  new PacketFramer().push(recorded, (p) => whole.push(Buffer.from(p)));

  it('contains the packet shapes that matter', () => {
    expect(whole.reduce((n, p) => n + p.length, 0)).toBe(recorded.length);
    const streamSizes = whole.filter((p) => packetType(p) === 3).map((p) => p.length - 28);
    expect(streamSizes).toContain(262120);
    expect(streamSizes).toContain(0);
    expect(whole.some((p) => packetType(p) === 1 && packetStatus(p) === 1)).toBe(true);
  });

  it('decodes identically for any chunking', () => {
    fc.assert(
      fc.property(fc.array(fc.nat(), { maxLength: 300 }), (cuts) => {
        const out = feed(new PacketFramer(), recorded, cuts);
        expect(out.length).toBe(whole.length);
        for (let i = 0; i < whole.length; i++) expect(out[i]?.equals(whole[i] as Buffer)).toBe(true);
      }),
      { numRuns: 200 },
    );
  });
});

describe('PacketFramer', () => {
  const { stream, packets } = recordedStream();

  it('decodes the stream identically for any chunking', () => {
    fc.assert(
      fc.property(fc.array(fc.nat(), { maxLength: 200 }), (cuts) => {
        const framer = new PacketFramer();
        const out = feed(framer, stream, cuts);
        expect(out.length).toBe(packets.length);
        for (let i = 0; i < packets.length; i++) expect(out[i]?.equals(packets[i] as Buffer)).toBe(true);
        expect(framer.pending).toBe(0);
      }),
      { numRuns: 300 },
    );
  });

  it('decodes the stream fed one byte at a time', () => {
    const framer = new PacketFramer();
    const out: Buffer[] = [];
    const expected = packets.slice(0, 3);
    const upto = expected.reduce((n, p) => n + p.length, 0);
    for (let i = 0; i < upto; i++) framer.push(stream.subarray(i, i + 1), (p) => out.push(Buffer.from(p)));
    expect(out.map((b) => b.toString('hex'))).toEqual(expected.map((b) => b.toString('hex')));
  });

  it('rejects a packet longer than the maximum before buffering it', () => {
    const framer = new PacketFramer(1000);
    const bad = Buffer.alloc(8);
    bad.writeUInt32BE(1005, 0);
    expect(() => framer.push(bad, () => undefined)).toThrow(ProtocolError);
    expect(() => new PacketFramer(1000).push(bad, () => undefined)).toThrow(
      /packet length 1005 exceeds the maximum of 1004/,
    );
  });

  it('rejects a length word shorter than the header', () => {
    const bad = Buffer.alloc(4);
    bad.writeUInt32BE(27, 0);
    expect(() => new PacketFramer().push(bad, () => undefined)).toThrow(/shorter than the 28-byte minimum/);
  });

  it('rejects an oversized length split across chunks', () => {
    const framer = new PacketFramer(100);
    const bad = Buffer.alloc(4);
    bad.writeUInt32BE(0xffffffff, 0);
    framer.push(bad.subarray(0, 2), () => undefined);
    expect(() => framer.push(bad.subarray(2), () => undefined)).toThrow(/exceeds the maximum/);
  });
});
