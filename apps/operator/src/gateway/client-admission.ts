// Clients at the door: the per-address connection cap, and the answers to what the parser refuses.
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { GatewayContext } from './gateway-context.js';
import type { GatewayLimits } from './limits.js';
import type { Serving } from './serving.js';

/**
 * The per-client cap, one count per address across the HTTP and SOCKS5 listeners: a client past it
 * is refused at accept (how depends on the listener); every admitted socket is tracked for the drain.
 */
export function clientAdmission(
  ctx: GatewayContext,
  limits: Required<GatewayLimits>,
): Serving['admitClient'] {
  const { stats, sockets } = ctx;
  const perClient = new Map<string, number>();
  return (s, refuse) => {
    const ip = s.remoteAddress ?? '';
    const n = (perClient.get(ip) ?? 0) + 1;
    if (n > limits.maxConnectionsPerClient) {
      stats.reject('client-cap');
      refuse();
      return false;
    }
    perClient.set(ip, n);
    sockets.add(s);
    s.on('close', () => {
      sockets.delete(s);
      const left = (perClient.get(ip) ?? 1) - 1;
      if (left > 0) perClient.set(ip, left);
      else perClient.delete(ip);
    });
    return true;
  };
}

/**
 * Input the parser rejects gets a clear answer where it can still be given, then the socket goes;
 * nothing of it reaches other clients.
 */
export function answerClientErrors(server: Server, { ctx, limits }: Serving): void {
  server.on('clientError', (err: NodeJS.ErrnoException, s: Duplex) => {
    const answer = clientErrorAnswer(err, limits);
    ctx.stats.reject(answer.reason);
    if (s.writable && !(s as Socket).destroyed)
      s.end(
        `HTTP/1.1 ${answer.status}\r\nContent-Type: text/plain\r\nConnection: close\r\nContent-Length: ${Buffer.byteLength(answer.text)}\r\n\r\n${answer.text}`,
      );
    s.destroy();
  });
}

const CLIENT_CAP_TEXT = 'too many connections from this address\n';

/** A client over its address's connection cap: 429, then the socket goes. */
export function refuseClient(s: Socket): void {
  s.on('error', () => {});
  s.end(
    `HTTP/1.1 429 Too Many Requests\r\nContent-Type: text/plain\r\nConnection: close\r\nContent-Length: ${CLIENT_CAP_TEXT.length}\r\n\r\n${CLIENT_CAP_TEXT}`,
  );
  s.destroySoon();
}

/** The answer to a request the parser refused (Node's codes), and the rejection label. */
function clientErrorAnswer(
  err: NodeJS.ErrnoException & { rawPacket?: Buffer },
  limits: Required<GatewayLimits>,
): { status: string; text: string; reason: string } {
  if (err.code === 'HPE_HEADER_OVERFLOW') {
    // The head overflowed before its first line ended: it is the URL that is too long.
    const firstLine = err.rawPacket?.indexOf('\r\n') ?? 0;
    if (firstLine < 0 || firstLine > limits.maxRequestLineBytes)
      return {
        status: '414 URI Too Long',
        text: `request URL longer than ${limits.maxRequestLineBytes} bytes\n`,
        reason: 'uri-too-long',
      };
    return {
      status: '431 Request Header Fields Too Large',
      text: `request head larger than ${limits.maxHeaderBytes} bytes\n`,
      reason: 'header-too-large',
    };
  }
  if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT' || err.code === 'ERR_HTTP_HEADERS_TIMEOUT')
    return {
      status: '408 Request Timeout',
      text: `request head not complete within ${limits.headersTimeoutMs} ms\n`,
      reason: 'header-timeout',
    };
  return { status: '400 Bad Request', text: 'malformed HTTP request\n', reason: 'bad-request' };
}
