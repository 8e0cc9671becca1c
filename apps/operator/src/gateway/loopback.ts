import { isIP } from 'node:net';

/**
 * Whether a listen host is this machine's loopback, where a gateway may run without users.
 * Its own module so that flag parsing (loaded by every command, `--help` included) does not load
 * the gateway server and its metrics with it.
 */
export const isLoopback = (host: string) =>
  host === 'localhost' || host === '::1' || (isIP(host) === 4 && host.startsWith('127.'));
