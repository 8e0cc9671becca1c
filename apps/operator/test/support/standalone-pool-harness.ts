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

type EchoServer = Awaited<ReturnType<typeof startEchoServer>>;

/**
 * A ProxyPool under `up` over the real local provider (Node engine, one loopback egress address
 * per member), for the tests that run one: a temporary directory with the providers file (local
 * ports in `ports`, apart from the other suites'), the state dir and the pools file; an echo
 * server as the probe target and the target a request reaches; the standalone run started with
 * short intervals; and the teardown (`down` for what a failed test left running).
 */
export class StandalonePoolHarness {
  readonly dir: string;
  readonly stateDir: string;
  readonly providersPath: string;
  readonly docsPath: string;
  /** The standalone run, once started. */
  sa: RunningStandalone | undefined;
  #echo: EchoServer | undefined;

  constructor(
    prefix: string,
    private readonly ports: { min: number; max: number },
  ) {
    this.dir = mkdtempSync(join(tmpdir(), prefix));
    this.stateDir = join(this.dir, 'state');
    this.providersPath = join(this.dir, 'providers.yaml');
    this.docsPath = join(this.dir, 'pools.yaml');
  }

  get echo(): EchoServer {
    if (!this.#echo) throw new Error('the harness is not set up: call setup() in beforeAll');
    return this.#echo;
  }

  /** Starts the echo server and writes the providers file. */
  async setup(): Promise<void> {
    this.#echo = await startEchoServer();
    const { min, max } = this.ports;
    writeFileSync(
      this.providersPath,
      `- name: local\n  type: local\n  local: {stateDir: local, portRange: {min: ${min}, max: ${max}}, engine: node, loopbackEgress: true}\n`,
    );
  }

  /**
   * A ProxyPool document on the local provider, probing the echo server; `specLines` (indented
   * two spaces) go before its gateway, whose port the echo server holds, so the gateway takes a
   * free one (as `up` does).
   */
  poolDoc(name: string, replicas: number, specLines = ''): string {
    return `apiVersion: egress-proxies.dev/v1alpha1
kind: ProxyPool
metadata:
  name: ${name}
spec:
  replicas: ${replicas}
  template:
    provider: local
    probe: {target: "${this.echo.url}", interval: 30s, timeout: 2s, retries: 1}
${specLines}  gateway: {port: ${this.echo.port}}
`;
  }

  /** Starts `up` over the pools file. */
  async start(extra: Partial<StandaloneOptions> = {}): Promise<RunningStandalone> {
    this.sa = await startStandalone({
      proxyPaths: [this.docsPath],
      providersPath: this.providersPath,
      stateDir: this.stateDir,
      debounceMs: 50,
      rescanMs: 300,
      pollIntervalMs: 200,
      failedProbeRetryMs: 300,
      defaultProbeTarget: this.echo.url,
      ...extra,
    });
    return this.sa;
  }

  /** Stops `up`. */
  async stopUp(): Promise<void> {
    await this.sa?.stop();
    this.sa = undefined;
  }

  /**
   * Polls `fn` every 100 ms until it returns a value; after `timeoutMs` fails naming `what` and
   * `context()` (the pools' views by default).
   */
  waitFor<T>(
    what: string,
    fn: () => T | undefined | false,
    context: () => string = () => `pools: ${JSON.stringify(this.sa?.pools.views())}`,
    timeoutMs = 60_000,
  ): Promise<T> {
    return pollUntil(what, fn, context, timeoutMs, 100);
  }

  /** Stops `up`, brings down whatever it left, stops the echo server and removes the directory. */
  async close(): Promise<void> {
    await this.stopUp();
    if (existsSync(this.stateDir))
      await down({ providersPath: this.providersPath, stateDir: this.stateDir }).catch(() => {});
    await this.#echo?.close();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** Polls `fn` every `everyMs` until it gives a value; past `timeoutMs` fails naming `what` and `context()`. */
async function pollUntil<T>(
  what: string,
  fn: () => T | undefined | false,
  context: () => string,
  timeoutMs: number,
  everyMs: number,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = fn();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; ${context()}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** Polls `fn` every 50 ms until it gives a value; past `timeoutMs` fails naming `what` and `context()` (as JSON). */
export function waitFor<T>(
  what: string,
  fn: () => T | undefined | false,
  context: () => unknown = () => '',
  timeoutMs = 90_000,
): Promise<T> {
  return pollUntil(what, fn, () => JSON.stringify(context()), timeoutMs, 50);
}

/**
 * The harness as a plain object, set up: `start` runs `up`, `running` is the run, `cleanup` is
 * `close`.
 */
export async function localUp(prefix: string, ports: { min: number; max: number }) {
  const h = new StandalonePoolHarness(prefix, ports);
  await h.setup();
  return {
    echo: h.echo,
    stateDir: h.stateDir,
    docsPath: h.docsPath,
    get running() {
      return h.sa;
    },
    start: (extra: Partial<StandaloneOptions> = {}) => h.start(extra),
    cleanup: () => h.close(),
  };
}
