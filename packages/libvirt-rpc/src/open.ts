import type { Duplex } from 'node:stream';
import { LibvirtClient } from './client.js';
import {
  type CallOptions,
  type ConnectionOptions,
  type KeepaliveOptions,
  RpcConnection,
} from './connection.js';
import { AuthType, DrvFeature, REMOTE_AUTH_TYPE_LIST_MAX, REMOTE_PROGRAM } from './constants.js';
import { UnsupportedAuthError } from './errors.js';
import { Procedure } from './procedures.js';

export interface OpenOptions extends CallOptions {
  /** Hypervisor URI sent in CONNECT_OPEN (default `qemu:///system`). */
  uri?: string;
  /** virConnectFlags (`ConnectFlags.RO` for read-only). Default 0. */
  flags?: number;
  /**
   * Keepalive. Server PINGs are always answered. With `true` or options, the client also
   * advertises keepalive support (so the daemon can detect a dead client) and sends its own
   * PINGs after `intervalMs` of silence, declaring the peer dead after `count` misses.
   */
  keepalive?: boolean | KeepaliveOptions;
  /** Instrumentation: one event per completed call. */
  onCall?: ConnectionOptions['onCall'];
  /** Asynchronous MESSAGE packets (domain events) from the server. */
  onMessage?: ConnectionOptions['onMessage'];
  /** Largest header + payload accepted from the server (default 32 MiB). */
  maxMessage?: number;
  /** Runs once when the connection ends (transports use it to release what they opened). */
  onClose?: ConnectionOptions['onClose'];
  /** See `ConnectionOptions.promptAcks` (the SSH transport turns it on). */
  promptAcks?: boolean;
}

/**
 * Runs the handshake on a connected byte stream: AUTH_LIST, AUTH_POLKIT when the daemon asks
 * for it, CONNECT_OPEN(uri, flags) and, with keepalive, CONNECT_SUPPORTS_FEATURE(keepalive).
 * On failure the stream is destroyed.
 */
export async function openLibvirt(transport: Duplex, options: OpenOptions = {}): Promise<LibvirtClient> {
  const keepalive = options.keepalive === true ? {} : options.keepalive || false;
  const conn = new RpcConnection(transport, {
    ...(options.maxMessage !== undefined ? { maxMessage: options.maxMessage } : {}),
    ...(options.onCall ? { onCall: options.onCall } : {}),
    ...(options.onMessage ? { onMessage: options.onMessage } : {}),
    ...(options.onClose ? { onClose: options.onClose } : {}),
    ...(options.promptAcks ? { promptAcks: true } : {}),
    keepalive,
  });
  const callOpts = openCallOptions(options);
  try {
    const types = await conn.call(
      REMOTE_PROGRAM,
      Procedure.AUTH_LIST,
      null,
      (r) => r.array(REMOTE_AUTH_TYPE_LIST_MAX, (x) => x.int()),
      callOpts,
    );
    if (!types.includes(AuthType.NONE) && types.length > 0) {
      if (!types.includes(AuthType.POLKIT)) {
        throw new UnsupportedAuthError(
          `the daemon requires authentication types [${types.join(', ')}]; only polkit (2) and none (0) are supported (SASL is not)`,
        );
      }
      await conn.call(REMOTE_PROGRAM, Procedure.AUTH_POLKIT, null, (r) => r.int(), callOpts);
    }
    await conn.call(
      REMOTE_PROGRAM,
      Procedure.CONNECT_OPEN,
      (w) =>
        w.optionalString(options.uri ?? 'qemu:///system', undefined, 'uri').uint(options.flags ?? 0, 'flags'),
      () => undefined,
      callOpts,
    );
    const client = new LibvirtClient(conn);
    if (keepalive) await client.connectSupportsFeature(DrvFeature.PROGRAM_KEEPALIVE, callOpts);
    return client;
  } catch (err) {
    conn.destroy(err as Error);
    throw err;
  }
}

function openCallOptions(options: CallOptions): CallOptions {
  return {
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
  };
}
