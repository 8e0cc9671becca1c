import { PACKET_HEADER_SIZE, PACKET_LENGTH_SIZE, PACKET_PREFIX_SIZE } from './constants.js';
import { XdrError } from './errors.js';

/** The 24-byte header that follows a packet's length word. */
export interface PacketHeader {
  prog: number;
  vers: number;
  proc: number;
  type: number;
  serial: number;
  status: number;
}

/** Writes a header at `offset` (the header itself, not the length word). */
export function encodeHeader(buf: Buffer, header: PacketHeader, offset = 0): void {
  if (buf.length - offset < PACKET_HEADER_SIZE) {
    throw new XdrError(`header needs ${PACKET_HEADER_SIZE} bytes, buffer has ${buf.length - offset}`);
  }
  buf.writeUInt32BE(header.prog >>> 0, offset);
  buf.writeUInt32BE(header.vers >>> 0, offset + 4);
  buf.writeInt32BE(header.proc | 0, offset + 8);
  buf.writeInt32BE(header.type | 0, offset + 12);
  buf.writeUInt32BE(header.serial >>> 0, offset + 16);
  buf.writeInt32BE(header.status | 0, offset + 20);
}

/** Reads a header at `offset`. */
export function decodeHeader(buf: Buffer, offset = 0): PacketHeader {
  if (buf.length - offset < PACKET_HEADER_SIZE) {
    throw new XdrError(`header needs ${PACKET_HEADER_SIZE} bytes, buffer has ${buf.length - offset}`);
  }
  return {
    prog: buf.readUInt32BE(offset),
    vers: buf.readUInt32BE(offset + 4),
    proc: buf.readInt32BE(offset + 8),
    type: buf.readInt32BE(offset + 12),
    serial: buf.readUInt32BE(offset + 16),
    status: buf.readInt32BE(offset + 20),
  };
}

// Allocation-free accessors for a whole packet (length word at offset 0), used on the hot path.
export const packetProg = (p: Buffer): number => p.readUInt32BE(4);
export const packetVers = (p: Buffer): number => p.readUInt32BE(8);
export const packetProc = (p: Buffer): number => p.readInt32BE(12);
export const packetType = (p: Buffer): number => p.readInt32BE(16);
export const packetSerial = (p: Buffer): number => p.readUInt32BE(20);
export const packetStatus = (p: Buffer): number => p.readInt32BE(24);

/** Builds a complete packet (length word + header + payload) in one buffer. */
export function encodePacket(header: PacketHeader, payload?: Uint8Array): Buffer {
  const n = payload ? payload.length : 0;
  const buf = Buffer.allocUnsafe(PACKET_PREFIX_SIZE + n);
  buf.writeUInt32BE(PACKET_PREFIX_SIZE + n, 0);
  encodeHeader(buf, header, PACKET_LENGTH_SIZE);
  if (payload && n > 0) buf.set(payload, PACKET_PREFIX_SIZE);
  return buf;
}
