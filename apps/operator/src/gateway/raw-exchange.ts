import type { Socket } from 'node:net';
import { BodyFraming, FramingError } from './body-framing.js';
import { type GatewayContext, MEMBER_HEADER, MOVED_HEADER } from './gateway-context.js';
import type { MemberStats } from './gateway-stats.js';
import type { MemberConn, MemberConnOwner, MemberSockets } from './member-sockets.js';
import type { Choice } from './member-table.js';
import { type Outcome, worthRetrying } from './outcomes.js';
import { parseRawResponse, type RawRequest } from './raw-head.js';
import type { ClientIdentity } from './session.js';

// One request of the raw plain-HTTP path through the pool's members: the member choice, retries,
// the answer relayed to the client, and who is blamed when it breaks (raw-http.ts reads the
// client connection and hands it an exchange per request).

const CRLF2 = Buffer.from('\r\n\r\n');
const EMPTY = Buffer.alloc(0);
/** A member's response head larger than this is garbage. */
const MAX_RESPONSE_HEAD = 64 * 1024;
/** An answer body up to this size that came with its head goes out with it in one write. */
const SMALL = 4096;

/** The client connection an exchange answers on, as the raw path's reader gives it. */
export interface ExchangeClient {
  readonly socket: Socket;
  readonly ctx: GatewayContext;
  /** `body` while the request body is still being read from the client. */
  readonly phase: string;
  /** The raw path's kept-alive member connections. */
  readonly raw: { readonly pool: MemberSockets };
  /** The buffered request body bytes for the member (undefined: the body broke its framing). */
  bodyBytes(framing: BodyFraming): Buffer | undefined;
  /** The exchange is over: the next request, or the close it asked for. */
  finished(close: boolean): void;
}

/** Closes a member connection nobody hears about any more (its close is no failure). */
function drop(up: MemberConn | undefined): void {
  if (!up) return;
  up.owner = undefined;
  up.socket.destroy();
}

/** A complete answer of the gateway's own (502, 503, 504, 408), as on the `http` path. */
export function plainAnswer(status: string, text: string, close: boolean): string {
  return `HTTP/1.1 ${status}\r\ncontent-type: text/plain\r\ncontent-length: ${Buffer.byteLength(text)}\r\n${close ? 'connection: close\r\n' : ''}\r\n${text}`;
}

/** Why the gateway cut a member connection itself (its own timers). */
type Cut = 'connect-failed' | 'target-timeout';

/**
 * One request through members, attributed as the `http` path's forwardRequest attributes it: a
 * member that cannot be reached, or closes or resets before answering, is cooled down and (for a
 * request without a body) the next member is tried; a reused keep-alive connection that fails at
 * once is tried again on a fresh one; a client that leaves, a slow origin or a member's own 5xx
 * cool nobody down.
 */
export class Exchange implements MemberConnOwner {
  readonly #conn: ExchangeClient;
  readonly #req: RawRequest;
  readonly #id: ClientIdentity;
  readonly #retryable: boolean;
  /** Members this request was tried on, once there is more than one (most requests try one). */
  #tried: Set<string> | undefined;
  #triedFirst: string | undefined;
  #choice!: Choice;
  #stats!: MemberStats;
  #up: MemberConn | undefined;
  #release: (() => void) | undefined;
  #stale = false;
  /** The member connection served an answer before (a stale keep-alive one may fail at once). */
  #reused = false;
  #connected = false;
  /** Since when the member has said nothing while its answer is awaited (0: not waiting). */
  #since = 0;
  #cut: Cut | undefined;
  #fault: 'member-garbage' | undefined;
  /** The member's response head so far, until it is complete. */
  #resHead: Buffer = EMPTY;
  #body: BodyFraming | undefined;
  #reusable = false;
  #over = false;

  constructor(conn: ExchangeClient, req: RawRequest, id: ClientIdentity) {
    this.#conn = conn;
    this.#req = req;
    this.#id = id;
    this.#retryable = req.framing.done;
  }

  /** The member for the next attempt (under per-connection rotation, the connection's own). */
  choose(): Choice | undefined {
    const { ctx } = this.#conn;
    const pinning = ctx.rotate === 'per-connection' && this.#id.session === undefined;
    const tried = this.#tried ?? (this.#triedFirst === undefined ? undefined : new Set([this.#triedFirst]));
    if (pinning) {
      const name = ctx.pinned.get(this.#conn.socket);
      const member =
        name && !tried?.has(name) ? ctx.members.eligible().find((m) => m.name === name) : undefined;
      if (member) return { member };
    }
    const c = ctx.members.choose(this.#id.session, tried);
    if (c && pinning) ctx.pinned.set(this.#conn.socket, c.member.name);
    return c;
  }

  attempt(choice: Choice, stale: boolean): void {
    const { ctx } = this.#conn;
    const { member } = choice;
    this.#choice = choice;
    this.#stale = stale;
    if (this.#triedFirst === undefined) this.#triedFirst = member.name;
    else {
      if (!this.#tried) this.#tried = new Set([this.#triedFirst]);
      this.#tried.add(member.name);
    }
    this.#stats = ctx.stats.member(member.name);
    if (!stale) this.#stats.http++;
    this.#release = ctx.hold(member.name);
    const pool = this.#conn.raw.pool;
    const up = stale ? pool.open(member) : pool.take(member);
    up.owner = this;
    this.#up = up;
    this.#reused = up.reused;
    this.#connected = false;
    this.#since = 0;
    this.#cut = undefined;
    this.#fault = undefined;
    this.#resHead = EMPTY;
    if (up.socket.connecting) up.socket.setTimeout(ctx.connectTimeoutMs);
    else this.onConnect();
    up.socket.write(this.#req.upHead, 'latin1');
    if (this.#conn.phase === 'body') this.sendBody();
  }

  /** Sends the buffered request body; false when the member's buffer is full (reading pauses). */
  sendBody(): boolean {
    const up = this.#up;
    if (!up) return false;
    const chunk = this.#conn.bodyBytes(this.#req.framing);
    if (!chunk?.length) return chunk !== undefined;
    this.#stats.bytesUp += chunk.length;
    if (up.socket.write(chunk)) return true;
    const client = this.#conn.socket;
    client.pause();
    up.socket.once('drain', () => client.resume());
    return false;
  }

  onConnect(): void {
    this.#connected = true;
    this.#since = Date.now();
    // The connect timer (a fresh connection's only socket timer) is done; the answer time is swept.
    if (this.#up?.socket.timeout) this.#up.socket.setTimeout(0);
  }

  /** The answer timeout, from the sweep: connected, no head yet, nothing from the member for that long. */
  sweep(now: number, answerTimeoutMs: number): void {
    if (this.#since && !this.#body && now - this.#since >= answerTimeoutMs) this.onTimeout();
  }

  onTimeout(): void {
    this.#since = 0;
    this.#cut = this.#connected ? 'target-timeout' : 'connect-failed';
    this.#up?.socket.destroy();
  }

  onData(c: Buffer): void {
    let off = 0;
    /** The final head for the client, when it came in this chunk. */
    let head: string | undefined;
    if (!this.#body) {
      const all = this.#resHead.length ? Buffer.concat([this.#resHead, c]) : c;
      const end = all.indexOf(CRLF2);
      if (end < 0) {
        if (all.length > MAX_RESPONSE_HEAD) return void this.#memberGarbage();
        this.#since = Date.now(); // the member is saying something: the answer timeout restarts
        // Kept as a copy: the member connection's read buffer is reused by its next read.
        this.#resHead = Buffer.from(all);
        return;
      }
      this.#resHead = EMPTY;
      const res = parseRawResponse(all, end);
      if (!res) return void this.#memberGarbage();
      off = end + 4;
      if (res.status < 200) {
        // An interim answer (103 Early Hints, a stray 100) goes through; the final head follows.
        if (res.status === 101) return void this.#memberGarbage();
        this.#conn.socket.write(`${res.head}\r\n`, 'latin1');
        if (off < all.length) this.onData(all.subarray(off));
        return;
      }
      c = all;
      head = this.#answered(res.status, res.head, res.framing, res.length, res.keepAlive);
    }
    const body = this.#body as BodyFraming;
    let n: number;
    try {
      n = body.take(c, off);
    } catch (err) {
      if (!(err instanceof FramingError)) throw err;
      return void this.#answerCut('bad-framing');
    }
    if (n) {
      this.#stats.bytesDown += n;
      if (head !== undefined && n <= SMALL && body.kind !== 'close') {
        // A small answer that came whole leaves in one write (one system call): its body bytes
        // survive latin1 unchanged.
        this.#conn.socket.write(head + c.toString('latin1', off, off + n), 'latin1');
        head = undefined;
      } else {
        if (head !== undefined) this.#conn.socket.write(head, 'latin1');
        head = undefined;
        const chunk = off === 0 && n === c.length ? c : c.subarray(off, off + n);
        this.#toClient(chunk, body.kind === 'close');
      }
    }
    if (head !== undefined) this.#conn.socket.write(head, 'latin1');
    // A member that says more than one answer is not to be trusted with another request.
    if (off + n < c.length) this.#reusable = false;
    if (body.done) this.#complete();
  }

  /** The final head: counted, checked for a ban; returns it for the client, with the member's name. */
  #answered(
    status: number,
    head: string,
    framing: 'length' | 'chunked' | 'close',
    length: number,
    keepAlive: boolean,
  ): string {
    const { ctx } = this.#conn;
    const member = this.#choice.member.name;
    this.#since = 0;
    if (ctx.banStatuses.has(status)) ctx.outcome(member, `status-${status}`);
    const bodiless = this.#req.method === 'HEAD' || status === 204 || status === 304;
    this.#body = bodiless ? new BodyFraming('none') : new BodyFraming(framing, length);
    this.#reusable = keepAlive && (bodiless || framing !== 'close');
    let out = `${head}${MEMBER_HEADER}: ${member}\r\n`;
    if (this.#choice.movedFrom) out += `${MOVED_HEADER}: ${this.#choice.movedFrom}\r\n`;
    // A body that runs to the member's close goes on chunked, so the client connection stays open.
    if (!bodiless && framing === 'close') out += 'transfer-encoding: chunked\r\n';
    if (this.#req.close || ctx.draining()) out += 'connection: close\r\n';
    if (ctx.debug)
      ctx.log.debug(
        { member, kind: 'http', method: this.#req.method, status, session: this.#id.session },
        'gateway: request',
      );
    return `${out}\r\n`;
  }

  #toClient(chunk: Buffer, rechunk: boolean): void {
    const client = this.#conn.socket;
    if (rechunk) client.write(`${chunk.length.toString(16)}\r\n`, 'latin1');
    const ok = client.write(chunk);
    if (rechunk) client.write('\r\n', 'latin1');
    // Still queued, the chunk holds the member connection's read buffer: its next read gets another.
    if (client.writableLength > 0 && this.#up) this.#up.lent = true;
    if (!ok) {
      const up = this.#up;
      if (!up) return;
      up.socket.pause();
      client.once('drain', () => up.socket.resume());
    }
  }

  /** The answer is through: the member connection goes back to the pool, the client reads on. */
  #complete(): void {
    if (this.#over) return;
    const up = this.#end();
    // A member that answered before the whole request body reached it is not reused: the rest
    // of that body would be read as the next request.
    if (up && this.#reusable && this.#req.framing.done) this.#conn.raw.pool.give(up);
    else drop(up);
    this.#conn.finished(this.#req.close);
  }

  /** The exchange is over: its member count released, its member connection (if any) let go of. */
  #end(): MemberConn | undefined {
    this.#over = true;
    const up = this.#up;
    this.#up = undefined;
    this.#release?.();
    return up;
  }

  onClose(error: string | undefined): void {
    this.#up = undefined;
    this.#release?.();
    if (this.#over) return;
    const { ctx } = this.#conn;
    const member = this.#choice.member.name;
    if (this.#body) {
      // A body that runs to the close ends here; any other breaks off.
      if (this.#body.kind === 'close' && !error) {
        this.#conn.socket.write('0\r\n\r\n', 'latin1');
        this.#reusable = false;
        return void this.#complete();
      }
      return void this.#answerCut(error ?? 'closed');
    }
    // A keep-alive connection the member closed while idle: no failure of its own, so once more
    // on a fresh connection to the same member.
    if (
      this.#reused &&
      !this.#stale &&
      this.#retryable &&
      !this.#cut &&
      !this.#fault &&
      !this.#resHead.length
    )
      return void this.attempt(this.#choice, true);
    const outcome: Outcome =
      this.#cut ??
      this.#fault ??
      (!this.#connected ? 'connect-failed' : error ? 'member-reset' : 'member-closed');
    ctx.outcome(member, outcome, this.#cut ? 'ETIMEDOUT' : error);
    if (worthRetrying(outcome) && this.#retryable && (this.#tried?.size ?? 1) < ctx.attempts) {
      const next = this.choose();
      if (next) return void this.attempt(next, false);
      ctx.stats.reject('no-member');
      return void this.#answer('503 Service Unavailable', 'no Ready member in the pool\n');
    }
    if (outcome === 'target-timeout')
      return void this.#answer(
        '504 Gateway Timeout',
        `no answer through member ${member} within ${ctx.answerTimeoutMs} ms\n`,
      );
    this.#answer('502 Bad Gateway', `member ${member} failed\n`);
  }

  /** The client left before the answer was through: its own choice, the member not blamed. */
  clientGone(): void {
    if (this.#over) return;
    const up = this.#end();
    if (!up) return;
    drop(up);
    this.#conn.ctx.outcome(this.#choice.member.name, 'client-abort');
  }

  /**
   * The client's request body broke its framing: nobody's failure but the client's. The member
   * request is dropped unblamed; the client gets 400 unless an answer already started.
   */
  badRequestBody(): void {
    if (this.#over) return;
    drop(this.#end());
    const { ctx } = this.#conn;
    ctx.stats.reject('bad-request');
    const client = this.#conn.socket;
    if (this.#body) return void client.destroy();
    client.end(plainAnswer('400 Bad Request', 'malformed HTTP request\n', true), 'latin1');
    client.destroySoon();
  }

  /** A response that is not HTTP/1.x: the member's failure, counted when its socket has closed. */
  #memberGarbage(): void {
    this.#fault = 'member-garbage';
    this.#up?.socket.destroy();
  }

  #answerCut(detail: string): void {
    if (this.#over) return;
    drop(this.#end());
    this.#conn.ctx.outcome(this.#choice.member.name, 'answer-cut', detail);
    this.#conn.socket.destroy();
  }

  #answer(status: string, text: string): void {
    this.#over = true;
    const closes = this.#conn.phase === 'body';
    this.#conn.socket.write(plainAnswer(status, text, closes || this.#req.close), 'latin1');
    this.#conn.finished(this.#req.close);
  }
}
