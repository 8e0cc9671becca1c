import type { OpLogger } from '../domain/op-logger.js';
import { type GatewayOptions, type RunningGateway, startGateway } from '../gateway/gateway-server.js';

/**
 * Starts a pool's gateway under `up` on the port its spec asks for (8080 by default), with the
 * SOCKS5 listener `--gateway-socks-listen` asked for. A port in use falls back to a free one,
 * logged: two pools cannot share a port (the HTTP one from their specs, the SOCKS5 one from the
 * flag).
 */
export async function startPoolGateway(
  opts: Omit<GatewayOptions, 'port' | 'socks'>,
  port: number,
  socks: { host: string; port: number } | undefined,
  log: OpLogger,
): Promise<RunningGateway> {
  try {
    return await startGateway({ ...opts, port, ...(socks ? { socks } : {}) });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw err;
    log.warn({ pool: opts.pool, port, socks }, 'pool: gateway port in use; listening on a free port instead');
    return startGateway({
      ...opts,
      port: 0,
      ...(socks ? { socks: { host: socks.host, port: 0 } } : {}),
    });
  }
}
