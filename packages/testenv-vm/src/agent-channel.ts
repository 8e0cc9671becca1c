import { connect, type Socket } from 'node:net';
import { TestEnvVmError } from './errors.js';

type Extract<T> = (buf: Buffer) => { value: T; rest: Buffer } | undefined;

/**
 * One connection to the agent's unix socket, with a receive buffer that callers consume
 * piecewise (the sync handshake reads up to a 0xFF byte, everything else reads JSON lines).
 */
export class AgentChannel {
  private buf: Buffer = Buffer.alloc(0);
  private wake: (() => void) | undefined;
  private failure: Error | undefined;

  private constructor(private readonly sock: Socket) {
    sock.on('data', (d: Buffer) => {
      this.buf = this.buf.length === 0 ? d : Buffer.concat([this.buf, d]);
      this.wake?.();
    });
    sock.on('error', (e) => {
      this.failure ??= e;
      this.wake?.();
    });
    sock.on('close', () => {
      this.failure ??= new Error('the agent socket was closed');
      this.wake?.();
    });
  }

  static open(path: string, deadline: number, signal?: AbortSignal): Promise<AgentChannel> {
    return new Promise((resolve, reject) => {
      const sock = connect(path);
      const done = (err?: Error) => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        sock.off('connect', onConnect);
        sock.off('error', onError);
        if (err) {
          sock.destroy();
          reject(err);
        } else resolve(new AgentChannel(sock));
      };
      const onConnect = () => done();
      const onError = (e: Error) =>
        done(new TestEnvVmError('AGENT_ERROR', `cannot connect to the agent socket ${path}: ${e.message}`));
      const onAbort = () => done(signal?.reason);
      const timer = setTimeout(
        () => done(new TestEnvVmError('AGENT_TIMEOUT', `connecting to the agent socket ${path} timed out`)),
        Math.max(0, deadline - Date.now()),
      );
      sock.once('connect', onConnect);
      sock.once('error', onError);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  write(data: string | Buffer): void {
    this.sock.write(data);
  }

  /** Waits until `extract` finds what it wants in the buffer, then keeps only what follows it. */
  async take<T>(extract: Extract<T>, deadline: number, what: string, signal?: AbortSignal): Promise<T> {
    for (;;) {
      const got = extract(this.buf);
      if (got) {
        this.buf = got.rest;
        return got.value;
      }
      if (this.failure) {
        throw new TestEnvVmError('AGENT_ERROR', `${what}: ${this.failure.message}`, { cause: this.failure });
      }
      signal?.throwIfAborted();
      const left = deadline - Date.now();
      if (left <= 0)
        throw new TestEnvVmError('AGENT_TIMEOUT', `${what}: no answer from the guest agent in time`);
      await new Promise<void>((resolve) => {
        const finish = () => {
          clearTimeout(timer);
          signal?.removeEventListener('abort', finish);
          this.wake = undefined;
          resolve();
        };
        const timer = setTimeout(finish, left);
        signal?.addEventListener('abort', finish, { once: true });
        this.wake = finish;
      });
    }
  }

  close(): void {
    this.sock.destroy();
  }
}

/** Everything up to and including the next newline, parsed as JSON (undefined for a line that is not JSON). */
export const jsonLine: Extract<{ parsed: unknown }> = (buf) => {
  const nl = buf.indexOf(0x0a);
  if (nl < 0) return undefined;
  const text = buf.subarray(0, nl).toString('utf8').trim();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  return { value: { parsed }, rest: buf.subarray(nl + 1) };
};

/** Discards everything up to and including the next 0xFF sentinel byte. */
export const sentinel: Extract<true> = (buf) => {
  const at = buf.indexOf(0xff);
  if (at < 0) return undefined;
  return { value: true, rest: buf.subarray(at + 1) };
};
