import { connect, type Socket } from 'node:net';
import type { GatewayMember } from './member-table.js';

/** What a member connection reports to the exchange that holds it. */
export interface MemberConnOwner {
  onConnect(): void;
  onData(chunk: Buffer): void;
  /** The socket closed; `error` is its error code, if it failed. */
  onClose(error: string | undefined): void;
  onTimeout(): void;
}

/** Bytes one read of a member connection takes at most. */
const READ = 64 * 1024;

/**
 * One raw TCP connection to a member: its listeners are set once and call whoever holds it. It
 * reads into a buffer of its own through `onread`, reused from read to read: no allocation and
 * no stream 'data' machinery per answer. A chunk handed to `onData` is only valid during the
 * call; an owner that keeps it (a write to the client still queued) sets `lent`, and the next
 * read gets a new buffer.
 */
export class MemberConn {
  owner: MemberConnOwner | undefined;
  /** It served an answer before (a reused keep-alive connection). */
  reused = false;
  error: string | undefined;
  lent = false;
  /** Since when it sits in the pool (the pool's sweep closes it past the idle time). */
  idleSince = 0;
  readonly socket: Socket;

  constructor(
    readonly key: string,
    member: GatewayMember,
    idle: (conn: MemberConn) => void,
  ) {
    let buffer = Buffer.allocUnsafe(READ);
    const socket = connect({
      host: member.host,
      port: member.port,
      noDelay: true,
      onread: {
        buffer: () => buffer,
        callback: (n: number, b: Buffer) => {
          if (this.owner) this.owner.onData(b.subarray(0, n));
          else socket.destroy(); // an idle connection that speaks is done for
          if (this.lent) {
            this.lent = false;
            buffer = Buffer.allocUnsafe(READ);
          }
          return true;
        },
      },
    });
    this.socket = socket;
    socket.on('connect', () => this.owner?.onConnect());
    socket.on('error', (err: NodeJS.ErrnoException) => {
      this.error = err.code ?? err.message;
    });
    // Only a connect runs under a socket timer; idle and answer times are swept.
    socket.on('timeout', () => this.owner?.onTimeout());
    socket.on('close', () => {
      const owner = this.owner;
      this.owner = undefined;
      if (owner) owner.onClose(this.error);
      else idle(this);
    });
  }
}

/**
 * Keep-alive connections to the members for the raw plain-HTTP path, last used first (the warm
 * one, and the others age out), at most `maxFree` idle in all. An idle connection is dropped when
 * it speaks, closes or sits past `idleMs` (under the members' own keep-alive timeout, Node's 5 s,
 * so a reused one is rarely stale), found by a periodic sweep rather than a timer armed per
 * answer.
 */
export class MemberSockets {
  readonly #idle = new Map<string, MemberConn[]>();
  #free = 0;

  constructor(
    readonly maxFree = 256,
    readonly idleMs = 3_000,
  ) {}

  /** An idle connection to `member`, or a new one (connecting: its owner hears `onConnect`). */
  take(member: GatewayMember): MemberConn {
    const key = `${member.host}:${member.port}`;
    const conn = this.#idle.get(key)?.pop();
    if (conn) {
      this.#free--;
      conn.idleSince = 0;
      return conn;
    }
    return this.open(member);
  }

  /** Always a new connection. */
  open(member: GatewayMember): MemberConn {
    return new MemberConn(`${member.host}:${member.port}`, member, (c) => this.#forget(c));
  }

  /** Back to the pool after a complete answer the member keeps the connection open after. */
  give(conn: MemberConn): void {
    conn.owner = undefined;
    if (this.#free >= this.maxFree || conn.socket.destroyed) return void conn.socket.destroy();
    conn.reused = true;
    conn.idleSince = Date.now();
    let list = this.#idle.get(conn.key);
    if (!list) {
      list = [];
      this.#idle.set(conn.key, list);
    }
    list.push(conn);
    this.#free++;
  }

  /** Idle connections in all (tests). */
  get free(): number {
    return this.#free;
  }

  /** Closes the connections idle past `idleMs` (their close takes them out of the pool). */
  sweep(now: number): void {
    for (const list of this.#idle.values())
      for (const c of list) if (now - c.idleSince >= this.idleMs) c.socket.destroy();
  }

  close(): void {
    for (const list of this.#idle.values()) for (const c of list) c.socket.destroy();
  }

  #forget(conn: MemberConn): void {
    const list = this.#idle.get(conn.key);
    const i = list ? list.indexOf(conn) : -1;
    if (i < 0 || !list) return;
    list.splice(i, 1);
    this.#free--;
    if (list.length === 0) this.#idle.delete(conn.key);
  }
}
