import { connect, type Socket } from 'node:net';

/** A CONNECT sent through a member: its answer, and the socket when it said 200. */
export interface ConnectAnswer {
  status: number;
  socket: Socket;
  /** Bytes the member sent after its response head (the start of the tunnel). */
  rest: Buffer;
}

/** Why a connect through a member failed before it answered (the member is at fault, not the target). */
export class MemberConnectError extends Error {
  constructor(
    readonly member: string,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'MemberConnectError';
  }
}

const MAX_HEAD = 16 * 1024;

/**
 * Opens a TCP connection to the member and asks it to CONNECT to `target` (`host:port`). Resolves
 * with the member's status once its response head arrived; rejects with MemberConnectError when
 * the member cannot be reached, hangs past `timeoutMs`, or answers garbage.
 */
export function connectThrough(
  member: { name: string; host: string; port: number },
  target: string,
  opts: { timeoutMs: number; signal?: AbortSignal },
): Promise<ConnectAnswer> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: member.host, port: member.port });
    let head = Buffer.alloc(0);
    const fail = (code: string, message: string) => {
      cleanup();
      socket.destroy();
      reject(new MemberConnectError(member.name, code, `member ${member.name}: ${message}`));
    };
    const onAbort = () => fail('ABORTED', 'the connection was cancelled');
    const onError = (err: NodeJS.ErrnoException) => fail(err.code ?? 'ERROR', err.message);
    const onTimeout = () => fail('ETIMEDOUT', `no answer to CONNECT within ${opts.timeoutMs} ms`);
    const onClose = () => fail('ECONNRESET', 'closed the connection before answering CONNECT');
    const onData = (chunk: Buffer) => {
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) {
        if (head.length > MAX_HEAD) fail('EPROTO', `response head longer than ${MAX_HEAD} bytes`);
        return;
      }
      const m = /^HTTP\/1\.[01] (\d{3})/.exec(head.subarray(0, end).toString('latin1'));
      if (!m) return fail('EPROTO', 'answered CONNECT with something other than HTTP/1.x');
      cleanup();
      socket.setTimeout(0);
      resolve({ status: Number(m[1]), socket, rest: head.subarray(end + 4) });
    };
    function cleanup() {
      socket.off('data', onData);
      socket.off('error', onError);
      socket.off('timeout', onTimeout);
      socket.off('close', onClose);
      opts.signal?.removeEventListener('abort', onAbort);
    }
    if (opts.signal?.aborted) return onAbort();
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    socket.setTimeout(opts.timeoutMs);
    socket.setNoDelay(true);
    socket.on('data', onData);
    socket.on('error', onError);
    socket.on('timeout', onTimeout);
    socket.on('close', onClose);
    socket.write(`CONNECT ${target} HTTP/1.1\r\nHost: ${target}\r\n\r\n`);
  });
}
