import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { connectThrough, MemberConnectError } from './connect-through.js';
import { type GatewayContext, MEMBER_HEADER, MOVED_HEADER } from './gateway-context.js';
import { type Outcome, worthRetrying } from './outcomes.js';
import type { ClientIdentity } from './session.js';

const TARGET = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+):(\d{1,5})$/;

/** `host:port` of a CONNECT request, or undefined when it is not one. */
export function connectTarget(url: string | undefined): string | undefined {
  const m = TARGET.exec(url ?? '');
  return m && Number(m[2]) >= 1 && Number(m[2]) <= 65535 ? (url as string) : undefined;
}

/** Why a tunnel was not opened: how the connection through a member ended, or no member to try. */
export type Refusal = Outcome | 'no-member';

/** How the client hears a tunnel's fate: an HTTP answer to CONNECT, or a SOCKS5 reply. */
export interface TunnelAnswers {
  /** The tunnel could not be opened: `status` is the HTTP answer, `why` whose doing that was. */
  refuse(status: number, text: string, why: Refusal): void;
  /** The member joined the tunnel; said to the client before any tunnel byte. */
  established(member: string, movedFrom: string | undefined): void;
}

/** The HTTP side's answers: a status line, and a 200 naming the member (and a moved session). */
export function httpTunnelAnswers(
  client: Duplex,
  answer: (status: number, text: string) => void,
): TunnelAnswers {
  return {
    refuse: (status, text) => answer(status, text),
    established(member, movedFrom) {
      client.write(
        `HTTP/1.1 200 Connection Established\r\n${MEMBER_HEADER}: ${member}\r\n${movedFrom ? `${MOVED_HEADER}: ${movedFrom}\r\n` : ''}\r\n`,
      );
    },
  };
}

/**
 * Opens a CONNECT tunnel through a member and joins it to the client's socket. A member that
 * cannot be reached is cooled down and the next one tried; a member's refusal is passed on (and a
 * ban status cools it down). Once joined, the member's bytes go to the client straight from the
 * read buffer (connectThrough's relay), the client's through a pipe, with backpressure both ways;
 * the byte counters read the member socket's totals at the end.
 */
export function openTunnel(
  ctx: GatewayContext,
  client: Duplex,
  head: Buffer,
  target: string,
  id: ClientIdentity,
  answers: TunnelAnswers,
): void {
  const abort = new AbortController();
  const onClientGone = () => abort.abort();
  client.once('close', onClientGone);
  const tried = new Set<string>();
  const attempt = async (): Promise<void> => {
    const choice = ctx.members.choose(id.session, tried);
    if (!choice) {
      ctx.stats.reject('no-member');
      return answers.refuse(
        tried.size ? 502 : 503,
        tried.size ? 'Bad Gateway' : 'Service Unavailable',
        'no-member',
      );
    }
    const { member } = choice;
    tried.add(member.name);
    let a: Awaited<ReturnType<typeof connectThrough>>;
    try {
      a = await connectThrough(member, target, {
        timeoutMs: ctx.connectTimeoutMs,
        answerTimeoutMs: ctx.answerTimeoutMs,
        signal: abort.signal,
      });
    } catch (err) {
      const outcome = err instanceof MemberConnectError ? err.outcome : 'connect-failed';
      if (abort.signal.aborted || outcome === 'client-abort') return ctx.outcome(member.name, 'client-abort');
      ctx.outcome(member.name, outcome, err instanceof MemberConnectError ? err.code : String(err));
      // Only a member's own failure is worth another member: a dead target is dead for all.
      if (worthRetrying(outcome) && tried.size < ctx.attempts) return attempt();
      return outcome === 'target-timeout'
        ? answers.refuse(504, 'Gateway Timeout', outcome)
        : answers.refuse(502, 'Bad Gateway', outcome);
    }
    client.off('close', onClientGone);
    if (a.status !== 200) {
      a.socket.destroy();
      const why: Outcome = ctx.banStatuses.has(a.status) ? `status-${a.status}` : 'target-refused';
      ctx.outcome(member.name, why);
      return answers.refuse(a.status, 'Refused By Member', why);
    }
    const stats = ctx.stats.member(member.name);
    stats.connect++;
    const release = ctx.hold(member.name);
    const upstream: Socket = a.socket;
    // The CONNECT exchange with the member is not tunnel traffic.
    const sent = upstream.bytesWritten;
    const received = upstream.bytesRead - a.rest.length;
    ctx.sockets.add(upstream);
    let closed = false;
    const finish = () => {
      if (closed) return;
      closed = true;
      release();
      stats.bytesUp += upstream.bytesWritten - sent;
      stats.bytesDown += upstream.bytesRead - received;
      ctx.sockets.delete(upstream);
      upstream.destroy();
      client.destroy();
    };
    upstream.on('error', (err: NodeJS.ErrnoException) => {
      ctx.outcome(member.name, 'tunnel-reset', err.code);
      finish();
    });
    // The member's end reaches the client after every byte before it; the client's end reaches
    // the member through the pipe. A side that fails cuts both.
    upstream.on('end', () => client.end());
    upstream.on('close', (hadError: boolean) => {
      if (hadError || client.writableFinished || client.destroyed) finish();
      else client.once('finish', finish);
    });
    client.on('close', finish);
    answers.established(member.name, choice.movedFrom);
    if (a.rest.length) client.write(a.rest);
    if (head.length) upstream.write(head);
    a.relayTo(client);
    client.pipe(upstream);
    if (ctx.debug)
      ctx.log.debug({ member: member.name, kind: 'connect', session: id.session }, 'gateway: tunnel');
  };
  void attempt();
}
