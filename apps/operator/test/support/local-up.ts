import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { down } from '../../src/standalone/down.js';
import { startEchoServer } from '../../src/standalone/echo-server.js';
import {
  type RunningStandalone,
  type StandaloneOptions,
  startStandalone,
} from '../../src/standalone/standalone.js';

/**
 * `up` over the real local provider (Node engine, a loopback egress address per member) in a
 * fresh temporary directory, with the fast timings the pool tests use; `cleanup` stops it, deletes
 * what it created and removes the directory.
 */
export async function localUp(prefix: string, ports: { min: number; max: number }) {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const stateDir = join(dir, 'state');
  const providersPath = join(dir, 'providers.yaml');
  const docsPath = join(dir, 'pools.yaml');
  const echo = await startEchoServer();
  writeFileSync(
    providersPath,
    `- name: local\n  type: local\n  local: {stateDir: local, portRange: {min: ${ports.min}, max: ${ports.max}}, engine: node, loopbackEgress: true}\n`,
  );
  let sa: RunningStandalone | undefined;
  return {
    echo,
    stateDir,
    docsPath,
    get running() {
      return sa;
    },
    async start(extra: Partial<StandaloneOptions> = {}) {
      sa = await startStandalone({
        proxyPaths: [docsPath],
        providersPath,
        stateDir,
        debounceMs: 50,
        rescanMs: 300,
        pollIntervalMs: 200,
        failedProbeRetryMs: 300,
        defaultProbeTarget: echo.url,
        ...extra,
      });
      return sa;
    },
    async cleanup() {
      await sa?.stop();
      if (existsSync(stateDir)) await down({ providersPath, stateDir }).catch(() => {});
      await echo.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Polls `fn` until it gives a value; past `timeoutMs` fails naming `what` and `context()`. */
export async function waitFor<T>(
  what: string,
  fn: () => T | undefined | false,
  context: () => unknown = () => '',
  timeoutMs = 90_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = fn();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; ${JSON.stringify(context())}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
