import { createConnection, type Socket } from 'node:net';
import type { LibvirtClient } from './client.js';
import { deadline } from './deadline.js';
import { TransportError } from './errors.js';
import { type OpenOptions, openLibvirt } from './open.js';

/** Options of every connect function: the handshake options plus an overall signal/timeout. */
export type ConnectOptions = OpenOptions;

/** Default path of the system daemon's read-write socket. */
export const DEFAULT_SOCKET_PATH = '/var/run/libvirt/libvirt-sock';

function describeNetError(err: NodeJS.ErrnoException, target: string): string {
  switch (err.code) {
    case 'ENOENT':
      return `libvirt socket ${target} does not exist (is libvirtd running?)`;
    case 'EACCES':
      return `permission denied connecting to ${target}`;
    case 'ECONNREFUSED':
      return `connection refused by ${target}`;
    default:
      return `cannot connect to ${target}: ${err.message}`;
  }
}

/** Resolves once `socket` is connected; destroys it on error, abort or timeout. */
export function waitConnected(
  socket: Socket,
  target: string,
  signal: AbortSignal | undefined,
): Promise<void> {
  return new Promise((resolve, reject) => {
    const done = (err?: unknown) => {
      socket.off('connect', onConnect);
      socket.off('error', onError);
      signal?.removeEventListener('abort', onAbort);
      if (err === undefined) return resolve();
      socket.destroy();
      reject(err);
    };
    const onConnect = () => done();
    const onError = (err: NodeJS.ErrnoException) =>
      done(new TransportError(describeNetError(err, target), { cause: err }));
    const onAbort = () => done(signal?.reason);
    if (signal?.aborted) return onAbort();
    socket.once('connect', onConnect);
    socket.once('error', onError);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

async function connectSocket(
  socket: Socket,
  target: string,
  options: ConnectOptions,
): Promise<LibvirtClient> {
  const dl = deadline(options, `connecting to ${target}`);
  try {
    await waitConnected(socket, target, dl.signal);
    return await openLibvirt(socket, { ...options, signal: dl.signal, timeoutMs: undefined });
  } finally {
    dl.clear();
  }
}

/** Connects to a local daemon socket and runs the handshake. */
export function connectUnix(
  path: string = DEFAULT_SOCKET_PATH,
  options: ConnectOptions = {},
): Promise<LibvirtClient> {
  if (typeof path !== 'string' || path.length === 0) {
    return Promise.reject(new TransportError(`invalid unix socket path ${JSON.stringify(path)}`));
  }
  return connectSocket(createConnection({ path }), path, options);
}

/** Connects to a daemon listening on TCP (`listen_tcp`, no TLS) and runs the handshake. */
export function connectTcp(host: string, port = 16509, options: ConnectOptions = {}): Promise<LibvirtClient> {
  if (typeof host !== 'string' || host.length === 0) {
    return Promise.reject(new TransportError(`invalid host ${JSON.stringify(host)}`));
  }
  if (!Number.isInteger(port) || port < 1 || port > 65535) {
    return Promise.reject(new TransportError(`invalid port ${JSON.stringify(port)}`));
  }
  const socket = createConnection({ host, port, noDelay: true });
  return connectSocket(socket, `${host}:${port}`, options);
}
