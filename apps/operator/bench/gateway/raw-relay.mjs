// A minimal HTTP/1.1 forward relay on raw sockets, for the gateway benchmark only: what a proxy hop
// costs in Node when the data path goes around the `http` module (no HTTP parser objects, no
// IncomingMessage/ServerResponse/ClientRequest, no Agent). It does what the gateway's plain-HTTP
// path does per request and no more: reads the request head incrementally, drops the hop-by-hop
// and proxy headers, forwards the head and body to one upstream proxy over a pooled keep-alive
// socket, and relays the answer back verbatim but for its hop-by-hop headers plus one header
// naming the member. Bodies are relayed as they arrive; only their framing (Content-Length or
// chunked) is parsed, to know where a message ends. One request at a time per client connection:
// pipelined requests wait in the client's buffer.
//
// Not a product: HTTP/1.0, CONNECT, Upgrade, Expect and malformed input are refused, not served.
import { connect, createServer } from 'node:net';

const CRLF2 = Buffer.from('\r\n\r\n');
const MAX_HEAD = 64 * 1024;
const EMPTY = Buffer.alloc(0);
const READ = 64 * 1024;
const SMALL = 4096;
const DROP_UP = new Set(['proxy-authorization', 'proxy-connection', 'connection', 'keep-alive']);
const DROP_DOWN = new Set(['connection', 'keep-alive', 'proxy-connection']);

/** Where one message body ends: Content-Length, chunked (sizes parsed, bytes kept), or the close. */
export class BodyFraming {
  constructor(kind, length = 0) {
    this.kind = kind; // 'none' | 'length' | 'chunked' | 'close'
    this.left = length;
    this.state = 'size'; // chunked: 'size' line, 'data' (+ its CRLF), 'trailer' lines
    this.line = '';
    this.done = kind === 'none' || (kind === 'length' && length === 0);
  }

  /** How many bytes of `buf` from `off` belong to this body; `done` turns true at its end. */
  take(buf, off) {
    if (this.done) return 0;
    if (this.kind === 'close') return buf.length - off;
    if (this.kind === 'length') {
      const n = Math.min(this.left, buf.length - off);
      this.left -= n;
      this.done = this.left === 0;
      return n;
    }
    let i = off;
    while (i < buf.length && !this.done) {
      if (this.state === 'data') {
        const n = Math.min(this.left, buf.length - i);
        this.left -= n;
        i += n;
        if (this.left === 0) this.state = 'size';
        continue;
      }
      const nl = buf.indexOf(10, i);
      const end = nl < 0 ? buf.length : nl + 1;
      this.line += buf.toString('latin1', i, end);
      i = end;
      if (this.line.length > 4096) throw new Error('chunk line too long');
      if (nl < 0) break;
      const line = this.line;
      this.line = '';
      if (this.state === 'size') {
        const m = /^[0-9A-Fa-f]{1,15}/.exec(line);
        if (!m) throw new Error(`bad chunk size line ${JSON.stringify(line)}`);
        const size = Number.parseInt(m[0], 16);
        if (size === 0) this.state = 'trailer';
        else {
          this.left = size + 2;
          this.state = 'data';
        }
      } else if (line === '\r\n' || line === '\n') this.done = true;
    }
    return i - off;
  }
}

/**
 * One message head (request or status line plus headers) as the lines to forward, less the
 * dropped names, and what framing needs from it; undefined for a malformed header line.
 */
function parseHead(buf, end, dropped) {
  const lines = buf.toString('latin1', 0, end).split('\r\n');
  const kept = [lines[0]];
  let length;
  let chunked = false;
  let close = false;
  let upgrade = false;
  let expect = false;
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i];
    const colon = line.indexOf(':');
    if (colon <= 0) return undefined;
    const name = line.slice(0, colon).toLowerCase();
    if (name === 'content-length') length = Number(line.slice(colon + 1).trim());
    else if (name === 'transfer-encoding') chunked = /chunked/i.test(line);
    else if (name === 'connection') close = /close/i.test(line);
    else if (name === 'upgrade') upgrade = true;
    else if (name === 'expect') expect = true;
    if (!dropped.has(name)) kept.push(line);
  }
  return { first: lines[0], kept, length, chunked, close, upgrade, expect };
}

const framingOf = (h) =>
  h.chunked
    ? new BodyFraming('chunked')
    : h.length !== undefined
      ? new BodyFraming('length', h.length)
      : undefined;

/** Keep-alive sockets to one upstream proxy, last used first. */
class UpstreamPool {
  constructor(host, port) {
    this.host = host;
    this.port = port;
    this.idle = [];
  }
  take() {
    const s = this.idle.pop();
    if (s) return s;
    // Read into a buffer of its own, reused from read to read unless a write still holds it:
    // no allocation and no stream 'data' machinery per answer.
    let buffer = Buffer.allocUnsafe(READ);
    const fresh = connect({
      host: this.host,
      port: this.port,
      noDelay: true,
      onread: {
        buffer: () => buffer,
        callback: (n, b) => {
          fresh.onData(b.subarray(0, n));
          if (fresh.lent) {
            fresh.lent = false;
            buffer = Buffer.allocUnsafe(READ);
          }
        },
      },
    });
    fresh.on('error', () => {});
    fresh.on('close', () => fresh.onClose());
    return fresh;
  }
  give(s) {
    // An idle socket that speaks or closes is done for.
    s.onData = () => s.destroy();
    s.onClose = () => {
      const i = this.idle.indexOf(s);
      if (i >= 0) this.idle.splice(i, 1);
    };
    if (this.idle.length < 256) this.idle.push(s);
    else s.destroy();
  }
}

/** Serves one accepted client socket: its requests one after another, through `pool`. */
function serveClient(client, pool, member) {
  client.setNoDelay(true);
  let buf = EMPTY; // client bytes not yet handled
  let state = 'head'; // 'head' | 'body' (request body to upstream) | 'wait' (for the answer)
  let reqBody;
  let up;
  const fail = (status) => {
    if (status) client.end(`HTTP/1.1 ${status}\r\ncontent-length: 0\r\nconnection: close\r\n\r\n`);
    else client.destroy();
    state = 'dead';
    if (up) up.destroy();
  };
  const onClientData = (c) => {
    buf = buf.length ? Buffer.concat([buf, c]) : c;
    pump();
  };
  client.on('data', onClientData);
  client.on('error', () => {});
  client.on('close', () => {
    if (up && state !== 'head') up.destroy();
  });

  function pump() {
    while (buf.length) {
      if (state === 'head') {
        const end = buf.indexOf(CRLF2);
        if (end < 0) {
          if (buf.length > MAX_HEAD) fail('431 Request Header Fields Too Large');
          return;
        }
        const h = parseHead(buf, end, DROP_UP);
        if (!h) return fail('400 Bad Request');
        const sp = h.first.split(' ');
        if (sp.length !== 3 || sp[2] !== 'HTTP/1.1' || !sp[1].startsWith('http://') || h.upgrade || h.expect)
          return fail('501 Not Implemented');
        buf = buf.subarray(end + 4);
        const framing = framingOf(h) ?? new BodyFraming('none');
        startRequest(sp[0], `${h.kept.join('\r\n')}\r\n\r\n`, framing);
      } else if (state === 'body') {
        let n;
        try {
          n = reqBody.take(buf, 0);
        } catch {
          return fail('400 Bad Request');
        }
        if (n) up.write(n === buf.length ? buf : buf.subarray(0, n));
        buf = buf.subarray(n);
        if (reqBody.done) state = 'wait';
      } else return; // 'wait': a pipelined request stays buffered until the answer is through
    }
  }

  function startRequest(method, head, framing) {
    up = pool.take();
    reqBody = framing;
    state = framing.done ? 'wait' : 'body';
    up.write(head);
    let resHead = EMPTY;
    let resBody;
    let reusable = true;
    const finish = () => {
      const u = up;
      up = undefined;
      if (reusable) pool.give(u);
      else u.destroy();
      if (resBody.kind === 'close') return fail();
      state = 'head';
      pump();
    };
    up.onClose = () => {
      if (resBody?.kind === 'close') {
        reusable = false;
        return void client.end();
      }
      if (state !== 'head') fail(resBody ? undefined : '502 Bad Gateway');
    };
    const take = (framing, c, off) => {
      try {
        return framing.take(c, off);
      } catch {
        fail();
        return -1;
      }
    };
    up.onData = (c) => {
      let off = 0;
      if (!resBody) {
        const all = resHead.length ? Buffer.concat([resHead, c]) : c;
        const end = all.indexOf(CRLF2);
        // Kept as a copy: the read buffer is reused by the next read.
        if (end < 0) {
          resHead = Buffer.from(all);
          return;
        }
        const h = parseHead(all, end, DROP_DOWN);
        if (!h) return fail('502 Bad Gateway');
        const status = Number(h.first.slice(9, 12));
        c = all;
        off = end + 4;
        resHead = EMPTY;
        if (status < 200) {
          // An interim answer (100 Continue) goes through; the final head follows.
          client.write(c.toString('latin1', 0, off), 'latin1');
          return off < c.length ? up.onData(c.subarray(off)) : undefined;
        }
        reusable = !h.close;
        resBody =
          method === 'HEAD' || status === 204 || status === 304
            ? new BodyFraming('none')
            : (framingOf(h) ?? new BodyFraming('close'));
        h.kept.push(`X-Egress-Member: ${member}`);
        if (resBody.kind === 'close') h.kept.push('Connection: close');
        const headText = `${h.kept.join('\r\n')}\r\n\r\n`;
        // A small answer that came whole leaves as one string in one system call: its body
        // bytes survive latin1 unchanged, and the string is a copy (the read buffer is reused).
        if (c.length - off <= SMALL) {
          const n = take(resBody, c, off);
          if (n < 0) return;
          client.write(headText + c.toString('latin1', off, off + n), 'latin1');
          if (off + n < c.length) reusable = false;
          if (resBody.done) finish();
          return;
        }
        client.write(headText, 'latin1');
      }
      const n = take(resBody, c, off);
      if (n < 0) return;
      if (n) {
        const ok = client.write(off === 0 && n === c.length ? c : c.subarray(off, off + n));
        // Still queued, the slice holds the read buffer: the next read gets a new one.
        if (client.writableLength > 0) up.lent = true;
        if (!ok) {
          // This socket, not whichever the next request takes: it is the one to resume.
          const u = up;
          u.pause();
          client.once('drain', () => u.resume());
        }
      }
      if (off + n < c.length) reusable = false; // the upstream said more than one answer
      if (resBody.done) finish();
    };
  }
}

/** Listens on 127.0.0.1 and relays every request to the proxy at `port` (one member). */
export function startRawRelay(port, member = 'm0') {
  const pool = new UpstreamPool('127.0.0.1', port);
  return createServer((s) => serveClient(s, pool, member));
}
