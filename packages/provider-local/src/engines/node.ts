import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const NODE_PROXY_CONF = 'node-proxy.json';
const RUNNER = join('runner', 'node-proxy-runner.mjs');

/** What the runner script reads: no secret, nothing but where to listen and whom to serve. */
export interface NodeProxyConf {
  host: string;
  port: number;
  allowedSourceCIDRs: readonly string[];
  localAddress?: string;
  /** Each outgoing IPv6 connection leaves from a random address of this prefix. */
  ipv6Prefix?: string;
}

export function nodeProxyConf(c: NodeProxyConf): string {
  return `${JSON.stringify(c, null, 2)}\n`;
}

/**
 * The runner shipped in the package (`runner/node-proxy-runner.mjs`), found by walking up from
 * this module: it sits one level below the package root in the sources and in every dist entry.
 */
export function nodeRunnerPath(): string {
  // node:fs by getBuiltinModule: an ESM import of it builds its whole namespace, node:stream included.
  const { existsSync } = process.getBuiltinModule('node:fs');
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 4; i++) {
    const candidate = join(dir, RUNNER);
    if (existsSync(candidate)) return candidate;
    dir = dirname(dir);
  }
  throw Object.assign(new Error(`the Node proxy runner ${RUNNER} is missing from the package`), {
    code: 'ENOENT',
  });
}

/** `node <runner> <config>`: the config path in the cmdline is what identifies the process later. */
export function nodeArgs(runtimeDir: string, runner: string): string[] {
  return [runner, join(runtimeDir, NODE_PROXY_CONF)];
}
