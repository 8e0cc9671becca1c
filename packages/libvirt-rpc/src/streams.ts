import { Readable } from 'node:stream';
import type { CallEvent, CallOptions, RpcConnection, StreamSink } from './connection.js';
import {
  LEGACY_PAYLOAD_MAX,
  MESSAGE_PAYLOAD_MAX,
  MessageStatus,
  PACKET_PREFIX_SIZE,
  REMOTE_PROGRAM,
} from './constants.js';
import { deadline } from './deadline.js';
import { InvalidArgumentError, LibvirtError, ProtocolError } from './errors.js';
import { procedureName } from './procedures.js';
import { readRemoteError } from './remote-types.js';
import { WriteWindow } from './write-window.js';
import { XdrReader, type XdrWriter } from './xdr.js';

/** Data accepted by an upload: a Node readable, or any (async) iterable of byte chunks. */
export type UploadSource = Readable | AsyncIterable<Uint8Array> | Iterable<Uint8Array>;

export interface StreamCallOptions extends CallOptions {
  /** Report hook for the whole transfer (one event when it ends). */
  onCall?: (event: CallEvent) => void;
}

/** Bytes an upload may leave queued in the transport before it waits for them to flush. */
const DEFAULT_MAX_BUFFERED = 4 * 1024 * 1024;

export interface UploadOptions extends CallOptions {
  /** Bytes that may sit in the transport's write queue before the upload waits (default 4 MiB). */
  maxBufferedBytes?: number;
  /** Payload bytes per STREAM packet (default 256 KiB, accepted by every daemon version; at most 32 MiB − 24). */
  chunkSize?: number;
}

/** The server's verdict on a stream: resolves on STREAM/OK, rejects on STREAM/ERROR. */
class StreamOutcome {
  error: Error | null = null;
  done = false;
  private waiters: Array<() => void> = [];

  settle(error: Error | null): void {
    if (this.done) return;
    this.done = true;
    this.error = error;
    for (const w of this.waiters.splice(0)) w();
  }

  wait(): Promise<void> {
    if (this.done) return this.error ? Promise.reject(this.error) : Promise.resolve();
    return new Promise((resolve, reject) => {
      this.waiters.push(() => (this.error ? reject(this.error) : resolve()));
    });
  }
}

function streamError(packet: Buffer, procedure: string): Error {
  if (packet.length === PACKET_PREFIX_SIZE)
    return new ProtocolError(`${procedure} stream ended with an empty error`);
  try {
    return new LibvirtError(readRemoteError(new XdrReader(packet, PACKET_PREFIX_SIZE)), procedure);
  } catch (err) {
    return new ProtocolError(`cannot decode the ${procedure} stream error: ${(err as Error).message}`, {
      cause: err,
    });
  }
}

function report(
  hook: StreamCallOptions['onCall'],
  proc: number,
  serial: number,
  start: number,
  error?: Error,
): void {
  if (!hook) return;
  try {
    hook({
      procedure: procedureName(proc),
      proc,
      serial,
      durationMs: performance.now() - start,
      ...(error ? { error } : {}),
    });
  } catch {
    // Instrumentation must never break a transfer.
  }
}

function toBytes(chunk: unknown): Uint8Array {
  if (chunk instanceof Uint8Array) return chunk;
  if (typeof chunk === 'string') return Buffer.from(chunk);
  throw new InvalidArgumentError(`upload source yielded ${typeof chunk}, expected Uint8Array chunks`);
}

/**
 * Runs a write stream (e.g. STORAGE_VOL_UPLOAD): CALL, wait for its REPLY, send the data as
 * STREAM/CONTINUE packets (never empty), then STREAM/OK and wait for the server's STREAM/OK.
 * A failing source is aborted with STREAM/ERROR and the connection stays usable; an aborted
 * signal or timeout sends the abort too but marks the connection dead, since the caller does
 * not wait for the server's confirmation.
 */
export async function runUpload(
  conn: RpcConnection,
  proc: number,
  encodeArgs: (w: XdrWriter) => void,
  source: UploadSource,
  options: UploadOptions & StreamCallOptions,
): Promise<void> {
  const procedure = procedureName(proc);
  const chunkSize = options.chunkSize ?? LEGACY_PAYLOAD_MAX;
  if (!Number.isInteger(chunkSize) || chunkSize < 1 || chunkSize > MESSAGE_PAYLOAD_MAX) {
    throw new InvalidArgumentError(
      `chunkSize ${chunkSize} must be an integer between 1 and ${MESSAGE_PAYLOAD_MAX}`,
    );
  }
  const maxBuffered = options.maxBufferedBytes ?? DEFAULT_MAX_BUFFERED;
  const start = performance.now();
  const ts = deadline(options, procedure);
  const signal = ts.signal;
  const outcome = new StreamOutcome();
  let serial = 0;
  const sink: StreamSink = {
    onStreamPacket(status, packet) {
      if (status === MessageStatus.ERROR) outcome.settle(streamError(packet, procedure));
      else if (status === MessageStatus.OK) outcome.settle(null);
      // The server sends no data on an upload; anything else is ignored.
    },
    onConnectionClosed(error) {
      outcome.settle(error);
    },
  };
  try {
    await conn.call(
      REMOTE_PROGRAM,
      proc,
      encodeArgs,
      () => undefined,
      signal ? { signal } : {},
      (s) => {
        serial = s;
        conn.registerStream(s, sink);
      },
      false,
    );
  } catch (err) {
    if (serial) conn.unregisterStream(serial);
    ts.clear();
    report(options.onCall, proc, serial, start, err as Error);
    throw err;
  }

  let abandoned = false;
  const onAbort = () => {
    abandoned = true;
    if (!outcome.done) {
      conn.writeStream(proc, serial, MessageStatus.ERROR);
      conn.abandonOperation(`${procedure} stream (serial ${serial})`, 'aborted by the caller');
    }
  };
  signal?.addEventListener('abort', onAbort, { once: true });
  const body = async (): Promise<void> => {
    let sourceError: unknown = null;
    // Packet buffers are recycled once written: fresh large allocations cost a page fault per
    // 4 KiB (and kernel zeroing), which on a busy host costs more than the copy itself.
    const free: Buffer[] = [];
    const take = (): Buffer => free.pop() ?? Buffer.allocUnsafe(PACKET_PREFIX_SIZE + chunkSize);
    let pkt = take();
    let fill = 0;
    const window = new WriteWindow(maxBuffered);
    const unwatch = conn.onClosed((err) => window.fail(err));
    const onWindowAbort = () => window.fail(signal?.reason);
    signal?.addEventListener('abort', onWindowAbort, { once: true });
    const flush = async (): Promise<void> => {
      const full = fill === chunkSize;
      const packet = full ? pkt : pkt.subarray(0, PACKET_PREFIX_SIZE + fill);
      writeStreamPrefix(packet, proc, serial, MessageStatus.CONTINUE);
      const written = pkt;
      const size = packet.length;
      window.add(size);
      conn.write(packet, (err) => {
        window.done(size);
        if (!err && full && free.length < 64) free.push(written);
      });
      pkt = take();
      fill = 0;
      // Back-pressure: at most maxBuffered bytes queued in the transport.
      if (window.full) await window.wait();
    };
    try {
      for await (const raw of source as AsyncIterable<unknown>) {
        if (outcome.done || signal?.aborted) break;
        const chunk = toBytes(raw);
        let off = 0;
        while (off < chunk.length) {
          const n = Math.min(chunkSize - fill, chunk.length - off);
          pkt.set(n === chunk.length ? chunk : chunk.subarray(off, off + n), PACKET_PREFIX_SIZE + fill);
          fill += n;
          off += n;
          if (fill === chunkSize) {
            await flush();
            if (outcome.done) break;
          }
        }
      }
      if (fill > 0 && !outcome.done && !signal?.aborted) await flush();
    } catch (err) {
      sourceError = err;
    } finally {
      unwatch();
      signal?.removeEventListener('abort', onWindowAbort);
    }
    if (signal?.aborted || abandoned) throw signal?.reason;
    if (outcome.done) {
      // STREAM/ERROR from the server (or the connection ended) before we finished.
      await outcome.wait();
      throw new ProtocolError(`${procedure} stream was confirmed before the client finished it`);
    }
    if (sourceError !== null) {
      if (!conn.isOpen) throw sourceError;
      // Abort: STREAM/ERROR with an empty payload, then the server confirms.
      conn.writeStream(proc, serial, MessageStatus.ERROR);
      await outcome.wait().catch(() => undefined);
      throw sourceError;
    }
    conn.writeStream(proc, serial, MessageStatus.OK);
    await outcome.wait();
  };
  try {
    // The body may be stuck in a slow source; the caller still gets control back on abort.
    const running = body();
    running.catch(() => undefined);
    await waitOrAbort(running, signal);
    report(options.onCall, proc, serial, start);
  } catch (err) {
    report(options.onCall, proc, serial, start, err as Error);
    throw err;
  } finally {
    signal?.removeEventListener('abort', onAbort);
    conn.unregisterStream(serial);
    ts.clear();
  }
}

function waitOrAbort(p: Promise<void>, signal: AbortSignal | undefined): Promise<void> {
  if (!signal) return p;
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}

function writeStreamPrefix(packet: Buffer, proc: number, serial: number, status: number): void {
  packet.writeUInt32BE(packet.length, 0);
  packet.writeUInt32BE(REMOTE_PROGRAM, 4);
  packet.writeUInt32BE(1, 8);
  packet.writeInt32BE(proc, 12);
  packet.writeInt32BE(3, 16);
  packet.writeUInt32BE(serial, 20);
  packet.writeInt32BE(status, 24);
}

export interface DownloadOptions extends CallOptions {
  /** Bytes buffered in the returned stream before the connection stops reading (default 1 MiB). */
  highWaterMark?: number;
}

/**
 * Runs a read stream (e.g. STORAGE_VOL_DOWNLOAD) and resolves, once the CALL's REPLY is in,
 * with a Readable of the data. EOF is an empty STREAM/CONTINUE; the client then sends
 * STREAM/OK and the Readable ends only after the server's STREAM/OK. Destroying the Readable
 * early aborts the stream (STREAM/ERROR) and keeps the connection; an aborted signal or
 * timeout marks the connection dead.
 */
export async function runDownload(
  conn: RpcConnection,
  proc: number,
  encodeArgs: (w: XdrWriter) => void,
  options: DownloadOptions & StreamCallOptions,
): Promise<Readable> {
  const procedure = procedureName(proc);
  const start = performance.now();
  const ts = deadline(options, procedure);
  const signal = ts.signal;
  let serial = 0;
  // open: data flowing; finishing: EOF seen, our STREAM/OK sent; aborting: our STREAM/ERROR sent; done.
  let state: 'open' | 'finishing' | 'aborting' | 'done' = 'open';
  let reported = false;
  const finish = (error?: Error) => {
    if (state === 'done') return;
    state = 'done';
    conn.unregisterStream(serial);
    signal?.removeEventListener('abort', onAbort);
    ts.clear();
    if (!reported) {
      reported = true;
      report(options.onCall, proc, serial, start, error);
    }
  };
  const readable = new Readable({
    highWaterMark: options.highWaterMark ?? 1024 * 1024,
    read() {
      conn.resumeReading(serial);
    },
    destroy(err, cb) {
      if (state === 'open' || state === 'finishing') {
        if (conn.isOpen && state === 'open') {
          state = 'aborting';
          conn.writeStream(proc, serial, MessageStatus.ERROR);
          conn.resumeReading(serial);
          if (!reported) {
            reported = true;
            report(
              options.onCall,
              proc,
              serial,
              start,
              err ?? new Error(`${procedure} stream destroyed by the consumer`),
            );
          }
        } else {
          finish(err ?? undefined);
        }
      }
      cb(err);
    },
  });
  // The stream may fail before the caller gets it (data and error can arrive with the reply);
  // the error still surfaces through iteration, pipeline() and `readable.errored`.
  readable.on('error', () => undefined);
  const sink: StreamSink = {
    onStreamPacket(status, packet) {
      if (state === 'done') return;
      if (state === 'aborting') {
        if (status !== MessageStatus.CONTINUE) finish();
        return;
      }
      if (status === MessageStatus.CONTINUE) {
        if (packet.length === PACKET_PREFIX_SIZE) {
          if (state === 'open') {
            state = 'finishing';
            conn.writeStream(proc, serial, MessageStatus.OK);
          }
          return;
        }
        if (state === 'open' && !readable.push(packet.subarray(PACKET_PREFIX_SIZE)))
          conn.pauseReading(serial);
      } else if (status === MessageStatus.OK) {
        finish();
        readable.push(null);
      } else {
        const err = streamError(packet, procedure);
        finish(err);
        readable.destroy(err);
      }
    },
    onConnectionClosed(error) {
      if (state === 'done') return;
      const wasAborting = state === 'aborting';
      finish(error);
      if (!wasAborting) readable.destroy(error);
    },
  };
  const onAbort = () => {
    if (state === 'done') return;
    const reason = signal?.reason as Error;
    if (state === 'open' || state === 'finishing') conn.writeStream(proc, serial, MessageStatus.ERROR);
    finish(reason);
    readable.destroy(reason);
    conn.abandonOperation(`${procedure} stream (serial ${serial})`, 'aborted by the caller');
  };
  try {
    await conn.call(
      REMOTE_PROGRAM,
      proc,
      encodeArgs,
      () => undefined,
      signal ? { signal } : {},
      (s) => {
        serial = s;
        conn.registerStream(s, sink);
      },
      false,
    );
  } catch (err) {
    finish(err as Error);
    throw err;
  }
  if (signal?.aborted) onAbort();
  else signal?.addEventListener('abort', onAbort, { once: true });
  return readable;
}
