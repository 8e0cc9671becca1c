import { connect, createServer, type Socket } from 'node:net';
import { TestEnvError } from './errors.js';

export interface DelayRelayOptions {
  target: { host: string; port: number };
  /** Added latency per chunk, each direction. */
  delayMs: number;
}

export interface DelayRelay {
  host: '127.0.0.1';
  port: number;
  /** Stops listening and cuts every relayed connection. */
  close(): Promise<void>;
}

/** Unacknowledged bytes per direction before the source is paused. */
const HIGH_WATER = 4 * 1024 * 1024;

/**
 * Copies `from` to `to`, holding each chunk for `delayMs` after it arrived. Chunks leave in
 * arrival order because due times only increase and a single timer drains the queue head.
 */
function delayedPipe(from: Socket, to: Socket, delayMs: number): void {
  const queue: { due: number; data: Buffer }[] = [];
  let queued = 0;
  let timer: NodeJS.Timeout | undefined;
  let ended = false;

  const maybeResume = () => {
    if (queued < HIGH_WATER && !to.writableNeedDrain && from.isPaused() && !ended) from.resume();
  };
  to.on('drain', maybeResume);

  const pump = () => {
    timer = undefined;
    const now = Date.now();
    while (queue.length > 0 && queue[0]!.due <= now) {
      const { data } = queue.shift()!;
      queued -= data.length;
      if (!to.destroyed) to.write(data);
    }
    maybeResume();
    if (queue.length > 0) timer = setTimeout(pump, queue[0]!.due - now);
    else if (ended && !to.destroyed) to.end();
  };

  from.on('data', (data: Buffer) => {
    queue.push({ due: Date.now() + delayMs, data });
    queued += data.length;
    if (queued >= HIGH_WATER || to.writableNeedDrain) from.pause();
    timer ??= setTimeout(pump, delayMs);
  });
  from.on('end', () => {
    ended = true;
    // The FIN is delayed like data so it cannot overtake bytes still in the queue.
    timer ??= setTimeout(pump, delayMs);
  });
  from.on('close', () => {
    if (!ended) {
      if (timer) clearTimeout(timer);
      to.destroy();
    }
  });
}

/** A TCP relay on 127.0.0.1 adding `delayMs` per chunk in each direction (a poor man's netem). */
export function delayRelay(opts: DelayRelayOptions): Promise<DelayRelay> {
  const { target, delayMs } = opts;
  if (!Number.isFinite(delayMs) || delayMs < 0) {
    return Promise.reject(
      new TestEnvError('INVALID_ARGUMENT', `delayMs must be >= 0, got ${String(delayMs)}`),
    );
  }
  if (!Number.isInteger(target?.port) || target.port < 1 || target.port > 65535) {
    return Promise.reject(
      new TestEnvError('INVALID_ARGUMENT', `target.port must be 1-65535, got ${String(target?.port)}`),
    );
  }
  const sockets = new Set<Socket>();
  let closing = false;
  // Half-open on both legs, so one side's FIN is relayed without cutting the other direction.
  const server = createServer({ allowHalfOpen: true }, (client) => {
    if (closing) {
      // Accepted from the backlog after close() began.
      client.destroy();
      return;
    }
    const upstream = connect({ port: target.port, host: target.host, allowHalfOpen: true });
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.setNoDelay(true);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => {
        client.destroy();
        upstream.destroy();
      });
    }
    delayedPipe(client, upstream, delayMs);
    delayedPipe(upstream, client, delayMs);
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const addr = server.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      resolve({
        host: '127.0.0.1',
        port,
        close: () =>
          new Promise<void>((done) => {
            closing = true;
            // RST rather than FIN: a half-open peer would otherwise keep waiting.
            for (const s of sockets) s.resetAndDestroy();
            server.close(() => done());
          }),
      });
    });
  });
}
