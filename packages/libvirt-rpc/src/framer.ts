import { MESSAGE_MAX, PACKET_LENGTH_SIZE, PACKET_PREFIX_SIZE } from './constants.js';
import { ProtocolError } from './errors.js';

/**
 * Cuts a byte stream into whole packets, whatever the chunking. A packet that sits wholly in
 * one chunk is handed out as a view on that chunk (no copy); a packet that spans chunks is
 * copied once into a buffer of exactly its size, so the backlog is never re-concatenated.
 * Each packet handed out starts with its length word.
 */
export class PacketFramer {
  private readonly lenBuf = Buffer.alloc(PACKET_LENGTH_SIZE);
  private lenHave = 0;
  private pkt: Buffer | null = null;
  private pktHave = 0;
  private readonly maxLength: number;

  /** @param maxMessage largest header + payload accepted (the length word excluded). */
  constructor(maxMessage = MESSAGE_MAX) {
    this.maxLength = maxMessage + PACKET_LENGTH_SIZE;
  }

  /** Bytes held for an incomplete packet. */
  get pending(): number {
    return this.pkt ? this.pktHave : this.lenHave;
  }

  private checkLength(len: number): void {
    if (len < PACKET_PREFIX_SIZE) {
      throw new ProtocolError(`packet length ${len} is shorter than the ${PACKET_PREFIX_SIZE}-byte minimum`);
    }
    if (len > this.maxLength) {
      throw new ProtocolError(`packet length ${len} exceeds the maximum of ${this.maxLength} bytes`);
    }
  }

  /** Feeds one chunk; calls `onPacket` for every packet it completes. Throws ProtocolError on a bad length. */
  push(chunk: Buffer, onPacket: (packet: Buffer) => void): void {
    let off = 0;
    const end = chunk.length;
    while (off < end) {
      const pkt = this.pkt;
      if (pkt !== null) {
        const take = Math.min(pkt.length - this.pktHave, end - off);
        chunk.copy(pkt, this.pktHave, off, off + take);
        this.pktHave += take;
        off += take;
        if (this.pktHave === pkt.length) {
          this.pkt = null;
          this.pktHave = 0;
          onPacket(pkt);
        }
        continue;
      }
      if (this.lenHave === 0 && end - off >= PACKET_LENGTH_SIZE) {
        const len = chunk.readUInt32BE(off);
        this.checkLength(len);
        if (end - off >= len) {
          const view = chunk.subarray(off, off + len);
          off += len;
          onPacket(view);
          continue;
        }
        const next = Buffer.allocUnsafe(len);
        chunk.copy(next, 0, off, end);
        this.pkt = next;
        this.pktHave = end - off;
        off = end;
        continue;
      }
      // The length word itself is split across chunks.
      const take = Math.min(PACKET_LENGTH_SIZE - this.lenHave, end - off);
      chunk.copy(this.lenBuf, this.lenHave, off, off + take);
      this.lenHave += take;
      off += take;
      if (this.lenHave === PACKET_LENGTH_SIZE) {
        const len = this.lenBuf.readUInt32BE(0);
        this.lenHave = 0;
        this.checkLength(len);
        const next = Buffer.allocUnsafe(len);
        this.lenBuf.copy(next, 0);
        this.pkt = next;
        this.pktHave = PACKET_LENGTH_SIZE;
      }
    }
  }
}
