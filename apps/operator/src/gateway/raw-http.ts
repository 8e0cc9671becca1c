import type { Socket } from 'node:net';
import { type BodyFraming, FramingError } from './body-framing.js';
import { BAN_REPORT_HEADER, type GatewayContext } from './gateway-context.js';
import type { GatewayLimits } from './limits.js';
import { MemberSockets } from './member-sockets.js';
import type { PoolDemand } from './pool-demand.js';
import { Exchange, type ExchangeClient, plainAnswer } from './raw-exchange.js';
import { parseRawRequest, servableRequestLine } from './raw-head.js';
import { type ClientIdentity, clientIdentity, SESSION_HEADER } from './session.js';

// The raw plain-HTTP path: a reader in front of Node's HTTP parser on each client connection. It
// serves the common case (a well-formed keep-alive proxy GET through an eligible member) on raw
// sockets, with none of the `http` module's per-request objects, and hands the connection to the
// `http` server, at a request boundary and for good, whenever a request is anything else: the
// `http` path (and its answers to bad input, auth, the drain, wake holds) stays the reference.

const CRLF2 = Buffer.from('\r\n\r\n');
const EMPTY = Buffer.alloc(0);
/** Client bytes buffered while a request is in flight (pipelining) before reading pauses. */
const MAX_BUFFERED = 64 * 1024;

export interface RawHttpOptions {
  ctx: GatewayContext;
  limits: Required<GatewayLimits>;
  demand: PoolDemand;
  /** Gives the connection to the `http` server (its bytes already unshifted). */
  handOff(socket: Socket): void;
  /** How often header and idle timeouts are checked. */
  checkEveryMs: number;
}

/** Requests the raw path served and connections it handed to the `http` server (tests, benchmark). */
export interface RawHttpCounters {
  served: number;
  handedOff: number;
}

/** The raw path over all client connections: their timeouts, the member pool, the drain. */
export class RawHttp {
  readonly counters: RawHttpCounters = { served: 0, handedOff: 0 };
  readonly pool = new MemberSockets();
  readonly #conns = new Set<ClientConn>();
  readonly #timer: NodeJS.Timeout;

  constructor(readonly opts: RawHttpOptions) {
    // One sweep for every connection's header and idle timeouts: no timer armed per request.
    this.#timer = setInterval(() => this.#sweep(Date.now()), opts.checkEveryMs);
    this.#timer.unref();
  }

  /** Starts reading an admitted client connection. */
  accept(socket: Socket): void {
    const conn = new ClientConn(this, socket);
    this.#conns.add(conn);
  }

  /** The drain: idle connections close now, busy ones after their answer. */
  closeIdle(): void {
    for (const c of this.#conns) c.closeIfIdle();
  }

  close(): void {
    clearInterval(this.#timer);
    this.pool.close();
  }

  forget(conn: ClientConn): void {
    this.#conns.delete(conn);
  }

  #sweep(now: number): void {
    for (const c of this.#conns) c.sweep(now);
    this.pool.sweep(now);
  }
}

/** One client connection while the raw path reads it. */
class ClientConn implements ExchangeClient {
  #buf: Buffer = EMPTY;
  /** Reading a head (or waiting for one), sending a request body, waiting for the answer. */
  #phase: 'head' | 'body' | 'wait' | 'gone' = 'head';
  #exchange: Exchange | undefined;
  /** When the head being read started (the header timeout), 0 when none is. */
  #headStart: number;
  /** Since when the connection sits between requests (the idle timeout), 0 when busy. */
  #idleSince = 0;
  readonly #onData = (c: Buffer) => this.#data(c);
  readonly #onEnd = () => this.#end();
  readonly #onClose = () => this.#close();

  constructor(
    readonly raw: RawHttp,
    readonly socket: Socket,
  ) {
    // (No setNoDelay: the server set it at accept, and it is a system call.)
    this.#headStart = Date.now();
    socket.on('data', this.#onData);
    socket.on('end', this.#onEnd);
    socket.on('close', this.#onClose);
    socket.on('error', noop);
  }

  get ctx(): GatewayContext {
    return this.raw.opts.ctx;
  }

  sweep(now: number): void {
    if (this.#exchange) this.#exchange.sweep(now, this.raw.opts.ctx.answerTimeoutMs);
    if (this.#phase !== 'head' || this.#exchange) return;
    const { limits, ctx } = this.raw.opts;
    if (this.#headStart && now - this.#headStart >= limits.headersTimeoutMs) {
      ctx.stats.reject('header-timeout');
      const text = `request head not complete within ${limits.headersTimeoutMs} ms\n`;
      this.#phase = 'gone';
      this.socket.end(plainAnswer('408 Request Timeout', text, true));
      this.socket.destroySoon();
    } else if (this.#idleSince && now - this.#idleSince >= limits.idleTimeoutMs) this.socket.destroy();
  }

  closeIfIdle(): void {
    if (this.#phase === 'head' && !this.#exchange && this.#buf.length === 0) this.socket.destroy();
  }

  #data(c: Buffer): void {
    this.#buf = this.#buf.length ? Buffer.concat([this.#buf, c]) : c;
    this.#pump();
  }

  /** Handles what is buffered: heads, then body bytes for the member; the next head waits. */
  #pump(): void {
    while (this.#buf.length) {
      if (this.#phase === 'head') {
        if (!this.#nextHead()) return;
      } else if (this.#phase === 'body') {
        if (!this.#exchange?.sendBody()) return;
      } else {
        // A pipelined request waits for the answer in flight; reading pauses past a bound.
        if (this.#buf.length > MAX_BUFFERED) this.socket.pause();
        return;
      }
    }
  }

  /** Starts the buffered request when its head is complete and servable; false to wait for more. */
  #nextHead(): boolean {
    const { limits, ctx, demand } = this.raw.opts;
    const buf = this.#buf;
    this.#idleSince = 0;
    const end = buf.indexOf(CRLF2);
    if (end < 0) {
      // Decided as soon as the first line is in: a CONNECT, an origin-form or HTTP/1.0 request,
      // garbage, or a head over the limits goes to the `http` server, which answers it.
      const lineEnd = buf.indexOf(10);
      if (
        buf.length > limits.maxHeaderBytes ||
        (lineEnd < 0 && buf.length > limits.maxRequestLineBytes) ||
        (lineEnd >= 0 && !servableRequestLine(buf.toString('latin1', 0, lineEnd - 1)))
      )
        this.#handOff();
      else if (!this.#headStart) this.#headStart = Date.now();
      return false;
    }
    const headBytes = end + 4;
    if (headBytes > limits.maxHeaderBytes) return this.#handOff();
    const req = parseRawRequest(buf, end, BAN_REPORT_HEADER);
    if (!req || req.url.length > limits.maxRequestLineBytes || ctx.draining()) return this.#handOff();
    const id =
      req.auth === undefined && req.session === undefined
        ? NO_IDENTITY
        : clientIdentity({ 'proxy-authorization': req.auth, [SESSION_HEADER]: req.session });
    if (!ctx.authorized(id)) return this.#handOff();
    const exchange = new Exchange(this, req, id);
    const first = exchange.choose();
    // No member now: the `http` path holds the request while the pool wakes, or answers 503.
    if (!first) return this.#handOff();
    this.#buf = buf.subarray(headBytes);
    this.#headStart = 0;
    this.#exchange = exchange;
    this.#phase = req.framing.done ? 'wait' : 'body';
    this.raw.counters.served++;
    demand.arrived();
    exchange.attempt(first, false);
    return true;
  }

  /** The buffered request body bytes for the member: how many `take` may have. */
  bodyBytes(framing: BodyFraming): Buffer | undefined {
    let n: number;
    try {
      n = framing.take(this.#buf, 0);
    } catch (err) {
      if (!(err instanceof FramingError)) throw err;
      // A request body that breaks its own chunking: the client's fault, answered 400 as the
      // `http` path answers it (when no answer has started), and the connection cannot be read on.
      this.#phase = 'gone';
      this.#buf = EMPTY;
      if (this.#exchange) this.#exchange.badRequestBody();
      else this.socket.destroy();
      return undefined;
    }
    const out = n === this.#buf.length ? this.#buf : this.#buf.subarray(0, n);
    this.#buf = this.#buf.subarray(n);
    if (framing.done) this.#phase = 'wait';
    return out;
  }

  get phase(): string {
    return this.#phase;
  }

  /** The exchange is over: the next request, or the close it asked for. */
  finished(close: boolean): void {
    this.#exchange = undefined;
    if (this.#phase === 'gone') return;
    // A request body not read to its end leaves the connection unreadable.
    if (close || this.#phase === 'body' || this.ctx.draining()) {
      this.#phase = 'gone';
      this.socket.end();
      return;
    }
    this.#phase = 'head';
    this.#idleSince = Date.now();
    if (this.socket.isPaused()) this.socket.resume();
    this.#pump();
  }

  #handOff(): false {
    this.#phase = 'gone';
    this.raw.forget(this);
    this.raw.counters.handedOff++;
    const s = this.socket;
    s.off('data', this.#onData);
    s.off('end', this.#onEnd);
    s.off('close', this.#onClose);
    s.off('error', noop);
    if (this.#buf.length) s.unshift(this.#buf);
    this.#buf = EMPTY;
    this.raw.opts.handOff(s);
    s.resume();
    return false;
  }

  /**
   * The client's end: as on the `http` path (no half-open HTTP), a request in flight is abandoned
   * (the client left) and the connection closes.
   */
  #end(): void {
    this.#phase = 'gone';
    this.#exchange?.clientGone();
    // Not twice: a second end() builds an error object for nothing.
    if (!this.socket.writableEnded) this.socket.end();
  }

  #close(): void {
    this.#phase = 'gone';
    this.raw.forget(this);
    this.#exchange?.clientGone();
  }
}

const noop = () => {};

const NO_IDENTITY: ClientIdentity = Object.freeze({});
