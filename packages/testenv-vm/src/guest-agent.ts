import { randomInt } from 'node:crypto';
import { AgentChannel, jsonLine, sentinel } from './agent-channel.js';
import { TestEnvVmError } from './errors.js';
import {
  type AgentCallOptions,
  type GuestExecOptions,
  type GuestExecResult,
  guestExecVia,
} from './guest-exec.js';

export type { AgentCallOptions, GuestExecOptions, GuestExecResult } from './guest-exec.js';

export interface GuestIpAddress {
  type: 'ipv4' | 'ipv6';
  address: string;
  prefix: number;
}

export interface GuestNetworkInterface {
  name: string;
  hardwareAddress: string | undefined;
  ipAddresses: GuestIpAddress[];
}

export interface GuestAgent {
  /** Resolves when the agent answers guest-ping. */
  ping(opts?: AgentCallOptions): Promise<void>;
  /** guest-network-get-interfaces, with the agent's field names made idiomatic. */
  networkInterfaces(opts?: AgentCallOptions): Promise<GuestNetworkInterface[]>;
  /** Runs `path` (searched on the guest's PATH) through guest-exec and waits for it to exit. */
  exec(path: string, args?: readonly string[], opts?: GuestExecOptions): Promise<GuestExecResult>;
  /** Any agent command; resolves with its `return` value. */
  call<T = unknown>(command: string, args?: Record<string, unknown>, opts?: AgentCallOptions): Promise<T>;
  /** Drops the connection; later calls reconnect. */
  close(): void;
}

const DEFAULT_TIMEOUT_MS = 15_000;

interface Reply {
  return?: unknown;
  error?: { class?: string; desc?: string };
}

function isReply(v: unknown): v is Reply {
  return typeof v === 'object' && v !== null && ('return' in v || 'error' in v);
}

/**
 * A client of the QEMU guest agent on the host end of its virtio-serial channel (a unix
 * socket). Calls are serialised. Every new connection starts with guest-sync-delimited: the
 * 0xFF byte resets the agent's parser and the echoed random id tells the fresh answer apart from
 * anything a previous, timed-out exchange left in the pipe. After a timeout the connection is
 * dropped, so the next call resynchronises.
 */
export function createGuestAgent(socketPath: string): GuestAgent {
  if (typeof socketPath !== 'string' || socketPath === '') {
    throw new TestEnvVmError(
      'INVALID_ARGUMENT',
      `socketPath must be a non-empty string, got ${String(socketPath)}`,
    );
  }
  let channel: AgentChannel | undefined;
  // Errors the agent answered with: the exchange finished, so the connection stays usable.
  const complete = new WeakSet<Error>();
  const answered = (e: Error) => {
    complete.add(e);
    return e;
  };
  let queue: Promise<unknown> = Promise.resolve();

  async function connected(deadline: number, signal?: AbortSignal): Promise<AgentChannel> {
    if (channel) return channel;
    const ch = await AgentChannel.open(socketPath, deadline, signal);
    try {
      const id = randomInt(1, 2 ** 47);
      ch.write(
        Buffer.concat([
          Buffer.from([0xff]),
          Buffer.from(`${JSON.stringify({ execute: 'guest-sync-delimited', arguments: { id } })}\n`),
        ]),
      );
      for (;;) {
        await ch.take(sentinel, deadline, 'guest-sync-delimited', signal);
        const { parsed } = await ch.take(jsonLine, deadline, 'guest-sync-delimited', signal);
        if (isReply(parsed) && parsed.return === id) break;
      }
    } catch (e) {
      ch.close();
      throw e;
    }
    channel = ch;
    return ch;
  }

  async function exchange(
    command: string,
    args: Record<string, unknown> | undefined,
    opts: AgentCallOptions,
  ) {
    opts.signal?.throwIfAborted();
    const deadline = Date.now() + (opts.timeoutMs ?? DEFAULT_TIMEOUT_MS);
    try {
      const ch = await connected(deadline, opts.signal);
      ch.write(`${JSON.stringify(args ? { execute: command, arguments: args } : { execute: command })}\n`);
      for (;;) {
        const { parsed } = await ch.take(jsonLine, deadline, command, opts.signal);
        if (!isReply(parsed)) continue;
        if (parsed.error) {
          throw answered(
            new TestEnvVmError(
              'AGENT_ERROR',
              `${command} failed in the guest: ${parsed.error.class ?? 'Error'}: ${parsed.error.desc ?? 'no description'}`,
            ),
          );
        }
        return parsed.return;
      }
    } catch (e) {
      // An agent error is a complete exchange; anything else leaves the stream in an unknown state.
      if (!(e instanceof Error && complete.has(e))) {
        channel?.close();
        channel = undefined;
      }
      throw e;
    }
  }

  function call<T>(command: string, args?: Record<string, unknown>, opts: AgentCallOptions = {}): Promise<T> {
    const run = queue.then(() => exchange(command, args, opts));
    queue = run.catch(() => undefined);
    return run as Promise<T>;
  }

  return {
    call,
    async ping(opts) {
      await call('guest-ping', undefined, opts);
    },
    async networkInterfaces(opts) {
      const raw = await call<unknown>('guest-network-get-interfaces', undefined, opts);
      if (!Array.isArray(raw))
        throw new TestEnvVmError('AGENT_PROTOCOL', 'guest-network-get-interfaces did not return a list');
      return raw.map((nic: Record<string, unknown>) => ({
        name: String(nic.name),
        hardwareAddress: typeof nic['hardware-address'] === 'string' ? nic['hardware-address'] : undefined,
        ipAddresses: (Array.isArray(nic['ip-addresses']) ? nic['ip-addresses'] : []).map(
          (a: Record<string, unknown>) => ({
            type: a['ip-address-type'] === 'ipv6' ? 'ipv6' : 'ipv4',
            address: String(a['ip-address']),
            prefix: Number(a.prefix),
          }),
        ),
      }));
    },
    exec: (path, args, opts) => guestExecVia(call, path, args, opts),
    close() {
      channel?.close();
      channel = undefined;
    },
  };
}
