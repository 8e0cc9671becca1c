import type { Duplex } from 'node:stream';
import {
  KEEPALIVE_PROC_PING,
  KEEPALIVE_PROC_PONG,
  KEEPALIVE_PROGRAM,
  KEEPALIVE_PROTOCOL_VERSION,
  MESSAGE_MAX,
  MessageStatus,
  MessageType,
  PACKET_LENGTH_SIZE,
  PACKET_PREFIX_SIZE,
  REMOTE_PROGRAM,
  REMOTE_PROTOCOL_VERSION,
} from './constants.js';
import { CallTimeoutError, ConnectionClosedError, LibvirtError, ProtocolError } from './errors.js';
import { PacketFramer } from './framer.js';
import { packetProc, packetProg, packetSerial, packetStatus, packetType } from './header.js';
import { procedureName } from './procedures.js';
import { readRemoteError } from './remote-types.js';
import { XdrReader, XdrWriter } from './xdr.js';

/** Options every call takes. */
export interface CallOptions {
  /** Abandons the call when aborted. A call already sent cannot be cancelled, so the connection is then marked dead. */
  signal?: AbortSignal;
  /** Fails the call with CallTimeoutError after this many ms (the connection is then marked dead). */
  timeoutMs?: number;
}

/** One record per completed call, for spans and log lines. */
export interface CallEvent {
  procedure: string;
  proc: number;
  serial: number;
  durationMs: number;
  error?: LibvirtError | Error;
}

export interface KeepaliveOptions {
  /** Send a PING after this much silence from the server (default 5000). */
  intervalMs?: number;
  /** Declare the peer dead after this many unanswered PINGs (default 5). */
  count?: number;
}

/** An asynchronous MESSAGE packet (events) from the server. */
export interface ServerMessage {
  prog: number;
  proc: number;
  payload: Buffer;
}

export interface ConnectionOptions {
  /** Largest header + payload accepted from the peer (default 32 MiB, the 9.x daemon limit). */
  maxMessage?: number;
  onCall?: (event: CallEvent) => void;
  /** Client-side PINGs with dead-peer detection. Off unless given. */
  keepalive?: KeepaliveOptions | false;
  onMessage?: (message: ServerMessage) => void;
  /** Called once when the connection ends, e.g. to close an SSH session under it. */
  onClose?: (reason: Error) => void;
  /**
   * After a read that leaves calls in flight, and when nothing else is written in that turn of
   * the event loop, write a keepalive PONG (the daemon drops it). The write carries our TCP
   * acknowledgement at once. Without it, a peer that runs Nagle's algorithm — sshd does for
   * forwarded channels — holds its next small reply until our delayed ACK fires (~40 ms on
   * Linux), which stalls every burst of pipelined calls. Off unless given.
   */
  promptAcks?: boolean;
}

/** Receives the STREAM packets of one stream (by serial). */
export interface StreamSink {
  onStreamPacket(status: number, packet: Buffer): void;
  onConnectionClosed(error: Error): void;
}

type Decoder<T> = (r: XdrReader) => T;
type Encoder = (w: XdrWriter) => void;

const now = (): number => performance.now();
/** Least time between two ACK nudges (see `promptAcks`). */
const NUDGE_GAP_MS = 1;

// biome-ignore lint/suspicious/noExplicitAny: the pending map holds calls of every result type.
class PendingCall<T = any> {
  timer: NodeJS.Timeout | undefined;
  signal: AbortSignal | undefined;
  onAbort: (() => void) | undefined;
  silent = false;

  constructor(
    readonly serial: number,
    readonly prog: number,
    readonly proc: number,
    readonly decode: Decoder<T>,
    readonly start: number,
    readonly resolve: (value: T) => void,
    readonly reject: (error: Error) => void,
  ) {}

  cleanup(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    if (this.signal && this.onAbort) this.signal.removeEventListener('abort', this.onAbort);
  }
}

/**
 * One libvirt RPC connection over a byte stream: serial allocation, reply matching (replies
 * may come out of order), keepalive, stream routing. It knows no procedure semantics.
 */
export class RpcConnection {
  private readonly framer: PacketFramer;
  private readonly pending = new Map<number, PendingCall>();
  private readonly streams = new Map<number, StreamSink>();
  private readonly pausedBy = new Set<number>();
  private serial = 0;
  private closedWith: Error | null = null;
  private readonly closeWaiters = new Set<(e: Error) => void>();
  private keepaliveTimer: NodeJS.Timeout | undefined;
  private sawTraffic = false;
  private missedPings = 0;
  private closing = false;
  private corked = false;
  private nudgeScheduled = false;
  private nudges = 0;
  private lastNudge = Number.NEGATIVE_INFINITY;
  private wroteSinceRead = false;

  constructor(
    readonly transport: Duplex,
    private readonly options: ConnectionOptions = {},
  ) {
    this.framer = new PacketFramer(options.maxMessage ?? MESSAGE_MAX);
    transport.on('data', this.onData);
    transport.on('error', (err: Error) =>
      this.destroy(new ConnectionClosedError(`connection failed: ${err.message}`, { cause: err })),
    );
    transport.on('end', () => this.destroy(this.endReason('the server closed the connection')));
    transport.on('close', () => this.destroy(this.endReason('the connection was closed')));
    if (options.keepalive) this.startKeepalive(options.keepalive);
  }

  /** The instrumentation hook given at connect time (streams report through it too). */
  get onCallHook(): ((event: CallEvent) => void) | undefined {
    return this.options.onCall;
  }

  /** Whether the connection can still carry calls. */
  get isOpen(): boolean {
    return this.closedWith === null;
  }

  /** Why the connection ended (null while open). */
  get closeReason(): Error | null {
    return this.closedWith;
  }

  /** Number of calls awaiting a reply. */
  get inFlight(): number {
    return this.pending.size;
  }

  nextSerial(): number {
    this.serial = (this.serial + 1) >>> 0;
    if (this.serial === 0) this.serial = 1;
    return this.serial;
  }

  /** Resolves when the connection ends, with the reason. */
  whenClosed(): Promise<Error> {
    if (this.closedWith) return Promise.resolve(this.closedWith);
    return new Promise((resolve) => this.closeWaiters.add(resolve));
  }

  /** Runs `listener` when the connection ends (at once if it has); returns an unsubscribe function. */
  onClosed(listener: (reason: Error) => void): () => void {
    if (this.closedWith) {
      listener(this.closedWith);
      return () => undefined;
    }
    this.closeWaiters.add(listener);
    return () => this.closeWaiters.delete(listener);
  }

  /**
   * Sends a CALL and resolves with the decoded REPLY. `onSerial` runs before the packet is
   * written, so a stream handler can be registered before any stream packet can arrive.
   */
  call<T>(
    prog: number,
    proc: number,
    encode: Encoder | null,
    decode: Decoder<T>,
    options: CallOptions = {},
    onSerial?: (serial: number) => void,
    report = true,
  ): Promise<T> {
    if (this.closedWith) return Promise.reject(this.closedWith);
    const { signal, timeoutMs } = options;
    if (signal?.aborted) return Promise.reject(signal.reason);
    const serial = this.nextSerial();
    let packet: Buffer;
    try {
      const w = new XdrWriter(encode ? 256 : PACKET_PREFIX_SIZE);
      w.skip(PACKET_PREFIX_SIZE);
      if (encode) encode(w);
      packet = w.finish();
      writePrefix(packet, prog, proc, MessageType.CALL, serial, MessageStatus.OK);
    } catch (err) {
      return Promise.reject(err);
    }
    if (packet.length - PACKET_LENGTH_SIZE > (this.options.maxMessage ?? MESSAGE_MAX)) {
      return Promise.reject(
        new ProtocolError(
          `${procedureName(proc)} arguments encode to ${packet.length} bytes, over the packet limit`,
        ),
      );
    }
    return new Promise<T>((resolve, reject) => {
      const call = new PendingCall<T>(serial, prog, proc, decode, now(), resolve, reject);
      call.silent = !report;
      if (signal) {
        call.signal = signal;
        call.onAbort = () => this.abandon(call, signal.reason, 'aborted');
        signal.addEventListener('abort', call.onAbort, { once: true });
      }
      if (timeoutMs !== undefined) {
        call.timer = setTimeout(
          () =>
            this.abandon(
              call,
              new CallTimeoutError(
                `${procedureName(proc)} (serial ${serial}) timed out after ${timeoutMs} ms`,
              ),
              `timed out after ${timeoutMs} ms`,
            ),
          timeoutMs,
        );
      }
      this.pending.set(serial, call as PendingCall);
      onSerial?.(serial);
      this.writeBatched(packet);
    });
  }

  /**
   * Writes one complete packet; returns false when the caller should wait for drain.
   * `onWritten` runs once the transport no longer needs the buffer.
   */
  write(packet: Buffer, onWritten?: (err?: Error | null) => void): boolean {
    if (this.closedWith) return true;
    this.wroteSinceRead = true;
    return onWritten ? this.transport.write(packet, onWritten) : this.transport.write(packet);
  }

  /**
   * Writes a small packet, coalescing every call made in the same tick into one writev:
   * pipelined calls then cost one syscall per batch instead of one per packet.
   */
  private writeBatched(packet: Buffer): void {
    if (this.closedWith) return;
    this.wroteSinceRead = true;
    if (!this.corked) {
      this.corked = true;
      this.transport.cork();
      process.nextTick(this.uncork);
    }
    this.transport.write(packet);
  }

  private readonly uncork = (): void => {
    this.corked = false;
    this.transport.uncork();
  };

  /** Builds and writes a STREAM packet for `serial`. */
  writeStream(proc: number, serial: number, status: number, data?: Uint8Array): boolean {
    const n = data ? data.length : 0;
    const packet = Buffer.allocUnsafe(PACKET_PREFIX_SIZE + n);
    writePrefix(packet, REMOTE_PROGRAM, proc, MessageType.STREAM, serial, status);
    if (data && n > 0) packet.set(data, PACKET_PREFIX_SIZE);
    return this.write(packet);
  }

  /** Resolves on 'drain'; rejects when the connection ends or `signal` aborts. */
  waitDrain(signal?: AbortSignal): Promise<void> {
    if (this.closedWith) return Promise.reject(this.closedWith);
    if (!this.transport.writableNeedDrain) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const done = (err?: unknown) => {
        this.transport.off('drain', onDrain);
        this.transport.off('close', onClose);
        signal?.removeEventListener('abort', onAbort);
        if (err === undefined) resolve();
        else reject(err);
      };
      const onDrain = () => done();
      const onClose = () => done(this.closedWith ?? new ConnectionClosedError('the connection was closed'));
      const onAbort = () => done(signal?.reason);
      this.transport.on('drain', onDrain);
      this.transport.on('close', onClose);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  registerStream(serial: number, sink: StreamSink): void {
    this.streams.set(serial, sink);
  }

  unregisterStream(serial: number): void {
    this.streams.delete(serial);
    this.resumeReading(serial);
  }

  /** Stops reading the transport until `resumeReading(key)` (download back-pressure). */
  pauseReading(key: number): void {
    this.pausedBy.add(key);
    this.transport.pause();
  }

  resumeReading(key: number): void {
    if (this.pausedBy.delete(key) && this.pausedBy.size === 0 && !this.closedWith) this.transport.resume();
  }

  /** Marks the connection dead because an in-flight operation was given up. */
  abandonOperation(what: string, why: string): void {
    this.destroy(
      new ConnectionClosedError(
        `connection marked dead: ${what} was abandoned (${why}); the protocol cannot cancel it, so the connection must be redialled`,
      ),
    );
  }

  private abandon(call: PendingCall, error: unknown, why: string): void {
    if (this.pending.get(call.serial) !== call) return;
    this.pending.delete(call.serial);
    call.cleanup();
    const err = error instanceof Error ? error : new Error(String(error));
    this.report(call, err);
    call.reject(err);
    this.abandonOperation(`call ${procedureName(call.proc)} (serial ${call.serial})`, why);
  }

  /** Cuts the connection: every in-flight call and stream fails with `reason`. Idempotent. */
  destroy(reason?: Error): void {
    if (this.closedWith) return;
    const err =
      reason === undefined
        ? new ConnectionClosedError('the connection was destroyed')
        : ConnectionClosedError.isInstance(reason)
          ? reason
          : new ConnectionClosedError(`connection closed: ${reason.message}`, { cause: reason });
    this.closedWith = err;
    if (this.keepaliveTimer !== undefined) clearInterval(this.keepaliveTimer);
    this.transport.off('data', this.onData);
    if (!this.transport.destroyed) this.transport.destroy();
    const calls = [...this.pending.values()];
    this.pending.clear();
    for (const call of calls) {
      call.cleanup();
      this.report(call, err);
      call.reject(err);
    }
    const sinks = [...this.streams.values()];
    this.streams.clear();
    for (const sink of sinks) sink.onConnectionClosed(err);
    const waiters = [...this.closeWaiters];
    this.closeWaiters.clear();
    for (const w of waiters) w(err);
    try {
      this.options.onClose?.(err);
    } catch {
      // A hook failure must not mask the close.
    }
  }

  private endReason(message: string): ConnectionClosedError {
    return new ConnectionClosedError(this.closing ? 'the connection was closed by the client' : message);
  }

  /** Marks an orderly client-side close in progress (so the peer's hang-up is not reported as a failure). */
  markClosing(): void {
    this.closing = true;
  }

  /** Half-closes the transport and waits (bounded) for the peer to close, then destroys. */
  async end(waitMs = 2000): Promise<void> {
    if (this.closedWith) return;
    this.transport.end();
    const timer = setTimeout(
      () => this.destroy(new ConnectionClosedError('the connection was closed by the client')),
      waitMs,
    );
    timer.unref();
    await this.whenClosed();
    clearTimeout(timer);
  }

  private report(call: PendingCall, error?: Error): void {
    const hook = this.options.onCall;
    if (!hook || call.silent) return;
    try {
      hook({
        procedure: procedureName(call.proc),
        proc: call.proc,
        serial: call.serial,
        durationMs: now() - call.start,
        ...(error ? { error } : {}),
      });
    } catch {
      // Instrumentation must never break a call.
    }
  }

  private readonly onData = (chunk: Buffer): void => {
    try {
      this.framer.push(chunk, this.onPacket);
    } catch (err) {
      this.destroy(
        ProtocolError.isInstance(err)
          ? new ConnectionClosedError(`protocol error: ${err.message}`, { cause: err })
          : (err as Error),
      );
      return;
    }
    if (this.options.promptAcks && !this.nudgeScheduled && this.pending.size > 0) {
      this.nudgeScheduled = true;
      this.wroteSinceRead = false;
      // setImmediate runs after the promise continuations of this read (which may write calls
      // of their own, each carrying the ACK) and after the nextTick that flushes batched calls.
      // At most one nudge per NUDGE_GAP_MS: within a long burst of replies, the peer gathers
      // what it holds meanwhile into fewer, larger writes, and each nudge costs it (and the
      // daemon behind it) a packet. 1,000 pipelined calls over SSH took ~250 nudges and 60-90 ms
      // without the gap, ~30 nudges and 40-55 ms with it.
      const wait = this.lastNudge + NUDGE_GAP_MS - now();
      if (wait <= 0) setImmediate(this.nudge);
      else setTimeout(this.nudge, wait).unref();
    }
  };

  private readonly nudge = (): void => {
    this.nudgeScheduled = false;
    if (this.closedWith || this.wroteSinceRead || this.pending.size === 0) return;
    this.nudges++;
    this.lastNudge = now();
    this.sendKeepalive(KEEPALIVE_PROC_PONG);
  };

  /** Keepalive PONGs written to carry prompt ACKs (see `promptAcks`); for tests and benchmarks. */
  get ackNudges(): number {
    return this.nudges;
  }

  private readonly onPacket = (packet: Buffer): void => {
    if (this.closedWith) return;
    this.sawTraffic = true;
    const prog = packetProg(packet);
    const type = packetType(packet);
    if (prog === KEEPALIVE_PROGRAM) {
      if (packetProc(packet) === KEEPALIVE_PROC_PING) this.sendKeepalive(KEEPALIVE_PROC_PONG);
      return;
    }
    if (type === MessageType.REPLY) {
      this.onReply(packet);
    } else if (type === MessageType.STREAM || type === MessageType.STREAM_HOLE) {
      const sink = this.streams.get(packetSerial(packet));
      // Late packets of a finished stream (e.g. after a STREAM/ERROR) are expected and ignored.
      if (sink) sink.onStreamPacket(packetStatus(packet), packet);
    } else if (type === MessageType.MESSAGE) {
      this.options.onMessage?.({
        prog,
        proc: packetProc(packet),
        payload: packet.subarray(PACKET_PREFIX_SIZE),
      });
    } else {
      throw new ProtocolError(
        `unexpected packet type ${type} (proc ${packetProc(packet)}, serial ${packetSerial(packet)})`,
      );
    }
  };

  private onReply(packet: Buffer): void {
    const serial = packetSerial(packet);
    const call = this.pending.get(serial);
    if (!call) {
      throw new ProtocolError(
        `received a reply with serial ${serial} (proc ${packetProc(packet)}) but no such call is in flight`,
      );
    }
    this.pending.delete(serial);
    call.cleanup();
    const r = new XdrReader(packet, PACKET_PREFIX_SIZE);
    const status = packetStatus(packet);
    const name = procedureName(call.proc);
    let error: Error | undefined;
    let value: unknown;
    if (packetProc(packet) !== call.proc || packetProg(packet) !== call.prog) {
      error = new ProtocolError(
        `reply for serial ${serial} names prog ${packetProg(packet)} proc ${packetProc(packet)}, expected ${name}`,
      );
    } else if (status === MessageStatus.OK) {
      try {
        value = call.decode(r);
        r.expectEnd(`${name} reply`);
      } catch (err) {
        error = new ProtocolError(`cannot decode the ${name} reply: ${(err as Error).message}`, {
          cause: err,
        });
      }
    } else if (status === MessageStatus.ERROR) {
      try {
        error = new LibvirtError(readRemoteError(r), name);
      } catch (err) {
        error = new ProtocolError(`cannot decode the error for ${name}: ${(err as Error).message}`, {
          cause: err,
        });
      }
    } else {
      error = new ProtocolError(`reply for ${name} has unexpected status ${status}`);
    }
    this.report(call, error);
    if (error) call.reject(error);
    else call.resolve(value);
  }

  private sendKeepalive(proc: number): void {
    const packet = Buffer.allocUnsafe(PACKET_PREFIX_SIZE);
    writePrefix(
      packet,
      KEEPALIVE_PROGRAM,
      proc,
      MessageType.MESSAGE,
      0,
      MessageStatus.OK,
      KEEPALIVE_PROTOCOL_VERSION,
    );
    this.write(packet);
  }

  private startKeepalive(opts: KeepaliveOptions): void {
    const intervalMs = opts.intervalMs ?? 5000;
    const count = opts.count ?? 5;
    this.keepaliveTimer = setInterval(() => {
      // While a slow download consumer has paused reading, silence is ours, not the peer's.
      if (this.sawTraffic || this.pausedBy.size > 0) {
        this.sawTraffic = false;
        this.missedPings = 0;
        return;
      }
      if (this.missedPings >= count) {
        this.destroy(
          new ConnectionClosedError(
            `the peer did not answer ${count} keepalive PINGs (${intervalMs} ms apart); the connection is considered dead`,
          ),
        );
        return;
      }
      this.missedPings++;
      this.sendKeepalive(KEEPALIVE_PROC_PING);
    }, intervalMs);
    this.keepaliveTimer.unref();
  }
}

function writePrefix(
  packet: Buffer,
  prog: number,
  proc: number,
  type: number,
  serial: number,
  status: number,
  vers = REMOTE_PROTOCOL_VERSION,
): void {
  packet.writeUInt32BE(packet.length, 0);
  packet.writeUInt32BE(prog, 4);
  packet.writeUInt32BE(vers, 8);
  packet.writeInt32BE(proc, 12);
  packet.writeInt32BE(type, 16);
  packet.writeUInt32BE(serial, 20);
  packet.writeInt32BE(status, 24);
}
