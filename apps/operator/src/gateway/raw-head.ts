import { METHODS } from 'node:http';
import { BodyFraming } from './body-framing.js';

// The strict subset of HTTP/1.1 the raw plain-HTTP path serves itself; a head outside it goes to
// the `http` server unchanged, so Node's parser stays the reference for everything unusual.

const TOKEN = "[!#$%&'*+.^_`|~0-9A-Za-z-]+";
const REQUEST_LINE = new RegExp(`^(${TOKEN}) (http://[\\x21-\\x7e]+) HTTP/1\\.1$`);
// A field value: no control characters but HTAB (obs-text allowed, as Node allows it).
const FIELD_LINE = new RegExp(`^${TOKEN}:[^\\x00-\\x08\\x0a-\\x1f\\x7f]*$`);
/**
 * The lengths of the names the parsers look at (content-length, transfer-encoding, expect,
 * upgrade, connection and keep-alive, proxy-authorization, proxy-connection and x-egress-session,
 * x-egress-ban): any other header is checked and kept without building its name or value.
 */
const NOTED = new Uint8Array(32);
for (const n of [14, 17, 6, 7, 10, 19, 16, 12]) NOTED[n] = 1;

/** The value of a header line whose colon is at `colon`, without the optional whitespace around it. */
const fieldValue = (line: string, colon: number) => line.slice(colon + 1).replace(OWS, '');
const OWS = /^[\t ]+|[\t ]+$/g;
const STATUS_LINE = /^HTTP\/1\.([01]) ([1-9]\d\d)(?: [^\x00-\x08\x0a-\x1f\x7f]*)?$/;
const DIGITS = /^\d{1,15}$/;
/**
 * The methods Node's parser knows, but CONNECT (a tunnel): an unknown or lower-case method goes
 * to the `http` path, which refuses it as Node does, instead of being passed on to the member.
 */
const RAW_METHODS: ReadonlySet<string> = new Set(METHODS.filter((m) => m !== 'CONNECT'));

/** A request head the raw path may serve. */
export interface RawRequest {
  method: string;
  url: string;
  /** The head for the member: the request line and the kept header lines, CRLF-terminated. */
  upHead: string;
  framing: BodyFraming;
  /** The client asked to close after this exchange (`Connection: close`). */
  close: boolean;
  auth: string | undefined;
  session: string | undefined;
}

/** Hop-by-hop and gateway-only request headers: never sent to the member. */
const DROPPED_UP = new Set([
  'proxy-authorization',
  'proxy-connection',
  'x-egress-session',
  'connection',
  'keep-alive',
]);

/** Whether the first line, once complete, could start a head the raw path serves. */
export function servableRequestLine(line: string): boolean {
  const m = REQUEST_LINE.exec(line);
  return m !== null && RAW_METHODS.has(m[1] as string);
}

/**
 * Parses the head `buf[0, end)` (`end` at its CRLFCRLF) when every line is in the strict subset
 * and the framing is unambiguous: at most one digits-only Content-Length and no
 * Transfer-Encoding, or exactly `Transfer-Encoding: chunked` and no Content-Length. Anything else
 * (obs-fold, bare LF, Expect, Upgrade, a ban report, duplicate credentials, HTTP/1.0) is
 * undefined: the `http` server takes it. `banHeader` is the ban report's name.
 */
export function parseRawRequest(buf: Buffer, end: number, banHeader: string): RawRequest | undefined {
  const lines = buf.toString('latin1', 0, end).split('\r\n');
  const first = REQUEST_LINE.exec(lines[0] as string);
  if (!first) return undefined;
  const method = first[1] as string;
  if (!RAW_METHODS.has(method)) return undefined;
  let upHead = `${lines[0]}\r\n`;
  let length: string | undefined;
  let chunked = false;
  let close = false;
  let auth: string | undefined;
  let session: string | undefined;
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i] as string;
    if (!FIELD_LINE.test(line)) return undefined; // obs-fold, a bare CR or LF, a bad name or value
    const colon = line.indexOf(':');
    if (!NOTED[colon] && colon !== banHeader.length) {
      upHead += `${line}\r\n`;
      continue;
    }
    const name = line.slice(0, colon).toLowerCase();
    const value = fieldValue(line, colon);
    switch (name) {
      case 'content-length':
        if (length !== undefined || !DIGITS.test(value)) return undefined;
        length = value;
        break;
      case 'transfer-encoding':
        if (chunked || value.toLowerCase() !== 'chunked') return undefined;
        chunked = true;
        break;
      case 'expect':
      case 'upgrade':
        return undefined;
      case 'connection': {
        const v = value.toLowerCase();
        if (v.includes('upgrade')) return undefined;
        if (v.includes('close')) close = true;
        break;
      }
      case 'proxy-authorization':
        if (auth !== undefined) return undefined;
        auth = value;
        break;
      case 'x-egress-session':
        if (session !== undefined) return undefined;
        session = value;
        break;
      default:
        if (name === banHeader) return undefined;
    }
    if (!DROPPED_UP.has(name)) upHead += `${line}\r\n`;
  }
  if (chunked && length !== undefined) return undefined;
  const framing = chunked
    ? new BodyFraming('chunked')
    : length !== undefined
      ? new BodyFraming('length', Number(length))
      : new BodyFraming('none');
  return { method, url: first[2] as string, upHead: `${upHead}\r\n`, framing, close, auth, session };
}

/** A member's response head, ready for the client. */
export interface RawResponse {
  status: number;
  /** The status line and kept header lines for the client, each CRLF-terminated (no blank line). */
  head: string;
  /** `length`/`chunked`/`close` as the member framed it (the caller decides on HEAD, 204, 304). */
  framing: 'length' | 'chunked' | 'close';
  length: number;
  /** The member keeps the connection open after this answer (if its body does not run to the close). */
  keepAlive: boolean;
}

/** Hop-by-hop response headers: never sent back to the client. */
const DROPPED_DOWN = new Set(['connection', 'keep-alive', 'proxy-connection']);

/**
 * Parses a member's response head `buf[0, end)`; undefined when it is not HTTP/1.x or its framing
 * is ambiguous (two different lengths, a length beside Transfer-Encoding): the member's failure.
 */
export function parseRawResponse(buf: Buffer, end: number): RawResponse | undefined {
  const lines = buf.toString('latin1', 0, end).split('\r\n');
  const statusLine = lines[0] as string;
  const s = STATUS_LINE.exec(statusLine);
  if (!s) return undefined;
  let head = `HTTP/1.1${statusLine.slice(8)}\r\n`;
  let length: string | undefined;
  let te: string | undefined;
  let keepAlive = s[1] === '1';
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i] as string;
    if (!FIELD_LINE.test(line)) return undefined;
    const colon = line.indexOf(':');
    if (!NOTED[colon]) {
      head += `${line}\r\n`;
      continue;
    }
    const name = line.slice(0, colon).toLowerCase();
    const value = fieldValue(line, colon);
    if (name === 'content-length') {
      if (!DIGITS.test(value) || (length !== undefined && length !== value)) return undefined;
      length = value;
    } else if (name === 'transfer-encoding') te = te === undefined ? value : `${te}, ${value}`;
    else if (name === 'connection') {
      const v = value.toLowerCase();
      if (v.includes('close')) keepAlive = false;
      else if (v.includes('keep-alive') && s[1] === '0') keepAlive = true;
    }
    if (!DROPPED_DOWN.has(name)) head += `${line}\r\n`;
  }
  if (te !== undefined && length !== undefined) return undefined;
  // Only a final `chunked` coding frames the body by chunks; any other coding runs to the close.
  const chunked = te !== undefined && /(?:^|,)[\t ]*chunked[\t ]*$/i.test(te);
  const framing = chunked ? 'chunked' : length !== undefined && te === undefined ? 'length' : 'close';
  return {
    status: Number(s[2]),
    head,
    framing,
    length: length === undefined ? 0 : Number(length),
    keepAlive,
  };
}
