/** How one HTTP/1.1 message body ends on the wire. */
export type FramingKind = 'none' | 'length' | 'chunked' | 'close';

/** A chunk-size or trailer line longer than this is garbage, not HTTP. */
const MAX_CHUNK_LINE = 4096;
const CHUNK_SIZE = /^[0-9A-Fa-f]{1,15}(?:[ \t]*;[^\r\n]*)?\r\n$/;

/** A body that does not parse as its framing says (a bad chunk-size line, chunk data of the wrong length). */
export class FramingError extends Error {
  override name = 'FramingError';
}

/**
 * Where one message body ends: after Content-Length bytes, after the last chunk (chunk sizes and
 * trailers parsed, every byte kept so the body is relayed verbatim), or at the connection's close.
 * The raw data path relays bytes as they arrive and only asks this how many belong to the body.
 */
export class BodyFraming {
  done: boolean;
  #left: number;
  #state: 'size' | 'data' | 'crlf' | 'trailer' = 'size';
  #line = '';
  /** Bytes of the CRLF after a chunk's data seen so far. */
  #crlf = 0;

  constructor(
    readonly kind: FramingKind,
    length = 0,
  ) {
    this.#left = length;
    this.done = kind === 'none' || (kind === 'length' && length === 0);
  }

  /** How many bytes of `buf` from `off` belong to this body; `done` turns true at its end. */
  take(buf: Buffer, off: number): number {
    if (this.done) return 0;
    if (this.kind === 'close') return buf.length - off;
    if (this.kind === 'length') {
      const n = Math.min(this.#left, buf.length - off);
      this.#left -= n;
      this.done = this.#left === 0;
      return n;
    }
    let i = off;
    while (i < buf.length && !this.done) {
      if (this.#state === 'data') {
        const n = Math.min(this.#left, buf.length - i);
        this.#left -= n;
        i += n;
        if (this.#left === 0) {
          this.#state = 'crlf';
          this.#crlf = 0;
        }
        continue;
      }
      if (this.#state === 'crlf') {
        // Exactly CRLF after a chunk's data: anything else means the sizes and the bytes disagree,
        // and what follows cannot be framed (it would be forwarded as the next chunk or message).
        if (buf[i] !== (this.#crlf === 0 ? 13 : 10))
          throw new FramingError('chunk data not followed by CRLF');
        i++;
        if (++this.#crlf === 2) this.#state = 'size';
        continue;
      }
      const nl = buf.indexOf(10, i);
      const end = nl < 0 ? buf.length : nl + 1;
      this.#line += buf.toString('latin1', i, end);
      i = end;
      if (this.#line.length > MAX_CHUNK_LINE)
        throw new FramingError(`chunk line longer than ${MAX_CHUNK_LINE} bytes`);
      if (nl < 0) break;
      this.#endLine(this.#line);
      this.#line = '';
    }
    return i - off;
  }

  #endLine(line: string): void {
    if (this.#state === 'trailer') {
      if (line === '\r\n') this.done = true;
      return;
    }
    if (!CHUNK_SIZE.test(line)) throw new FramingError(`bad chunk size line ${JSON.stringify(line)}`);
    const size = Number.parseInt(line, 16);
    if (size === 0) this.#state = 'trailer';
    else {
      this.#left = size;
      this.#state = 'data';
    }
  }
}
