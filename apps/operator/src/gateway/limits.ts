import { readFileSync } from 'node:fs';

/** What one client, or all of them together, may hold of the gateway. */
export interface GatewayLimits {
  /** How long a client may take to send a request's head (slowloris); it then gets 408. Default 10 s. */
  headersTimeoutMs?: number;
  /** How long a keep-alive client connection may sit between requests. Default 60 s. */
  idleTimeoutMs?: number;
  /** How long a tunnel may carry nothing either way before it is closed. Default 10 min. */
  tunnelIdleTimeoutMs?: number;
  /** Longest request line (the URL) in bytes; longer gets 414. Default 8 KiB. */
  maxRequestLineBytes?: number;
  /** Largest request head in bytes; larger gets 431. Default 32 KiB. */
  maxHeaderBytes?: number;
  /** Open connections one client address may hold; more are refused with 429. Default 2048. */
  maxConnectionsPerClient?: number;
  /** Open tunnels in all; more get 503. Default: what the file-descriptor limit allows. */
  maxTunnels?: number;
  /**
   * Open client connections in all; more are refused at accept while the open ones keep being
   * served. Default: half the file-descriptor limit (each client connection needs a member socket
   * too), less a reserve for listeners, logs and the API.
   */
  maxConnections?: number;
}

const FD_RESERVE = 64;

/** The process's soft limit on open files, from /proc (undefined where it cannot be read). */
export function openFileLimit(): number | undefined {
  try {
    const m = /^Max open files\s+(\d+)/m.exec(readFileSync('/proc/self/limits', 'utf8'));
    return m ? Number(m[1]) : undefined;
  } catch {
    return undefined;
  }
}

export function resolveLimits(l: GatewayLimits, fdLimit = openFileLimit()): Required<GatewayLimits> {
  const byFds = fdLimit ? Math.max(16, Math.floor((fdLimit - FD_RESERVE) / 2)) : 10_000;
  const out: Required<GatewayLimits> = {
    headersTimeoutMs: l.headersTimeoutMs ?? 10_000,
    idleTimeoutMs: l.idleTimeoutMs ?? 60_000,
    tunnelIdleTimeoutMs: l.tunnelIdleTimeoutMs ?? 10 * 60_000,
    maxRequestLineBytes: l.maxRequestLineBytes ?? 8 * 1024,
    maxHeaderBytes: l.maxHeaderBytes ?? 32 * 1024,
    maxConnectionsPerClient: l.maxConnectionsPerClient ?? 2048,
    maxTunnels: l.maxTunnels ?? byFds,
    maxConnections: l.maxConnections ?? byFds,
  };
  for (const [k, v] of Object.entries(out))
    if (!Number.isInteger(v) || v < 1)
      throw new RangeError(`gateway limit ${k}: ${v} is not a positive whole number`);
  return out;
}
