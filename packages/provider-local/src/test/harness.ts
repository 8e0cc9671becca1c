import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type {
  BackendControl,
  BackendInstanceView,
  ConformanceFixture,
  ConformanceHarness,
  SeedSpec,
  StateRow,
} from '@egress-proxies/conformance';
import { InstanceState } from '@egress-proxies/contract';
import { KeyedLock } from '@egress-proxies/keyedlock';
import { silentLogger } from '@egress-proxies/provider-utils';
import { type LocalBackend, STEPS, type Step } from '../backend.js';
import { checkTarget, LocalCheckReason } from '../check.js';
import { type LocalConfig, resolveConfig } from '../config.js';
import { type Context, DEFAULT_TIMING, type Timing } from '../context.js';
import { formatId } from '../id.js';
import { ensureRunning } from '../launch.js';
import { createOsBackend } from '../os-backend.js';
import { statePaths } from '../paths.js';
import { isOurProcess, stopProcess } from '../process.js';
import { buildLocalProvider } from '../provider.js';
import { decodeState, encodeState, type InstanceRecord } from '../state-file.js';
import { ControlledBackend } from './controlled-backend.js';

/** Backend-native states the harness can seed, with what `get` must report for each. */
export const LOCAL_STATE_TABLE: readonly StateRow[] = [
  { state: 'running', address: true, expected: InstanceState.Running },
  { state: 'running', address: false, expected: InstanceState.Provisioning },
  { state: 'exited', address: false, expected: InstanceState.Stopped },
  { state: 'stale-pid', address: false, expected: InstanceState.Stopped },
];

/** What `breakTarget` understands, with the reason the Checker must report. */
export const LOCAL_CHECK_CONDITIONS = [
  { condition: 'state-dir-unwritable', reason: LocalCheckReason.StateDirUnwritable },
  { condition: 'engine-unavailable', reason: LocalCheckReason.EngineUnavailable },
  { condition: 'no-free-port', reason: 'QuotaExceeded' },
] as const;

export interface LocalHarnessOptions {
  /** The configured provider name; `local-conformance` when absent. */
  providerName?: string;
  /** The port range every fixture uses (fixtures run one after another); keep it small. */
  portRange: { min: number; max: number };
  /** `node` by default: it starts fastest. */
  engine?: 'node' | 'squid';
  squidPath?: string;
  timing?: Partial<Timing>;
}

const FOREIGN_STATE = (name: string) =>
  `${JSON.stringify({ kind: 'someone-else.example/v1', name, note: 'not made by egress-proxies' })}\n`;

function seedContext(config: LocalConfig, backend: LocalBackend, timing: Timing): Context {
  return {
    providerName: 'seed',
    config,
    egressPlan: undefined,
    paths: statePaths(config.stateDir),
    timing,
    locks: new KeyedLock<string>(),
    reservedPorts: new Set(),
    localAddresses: () => [],
    isRoot: () => process.getuid?.() === 0,
    backend,
    pollBackend: backend,
    operation: 'seed',
    signal: undefined,
    logger: silentLogger,
  };
}

/**
 * The control interface over one fixture: the real host backend behind a `ControlledBackend`,
 * in a fresh state directory. Seeds and inspections go to the real backend directly, so they
 * are never recorded as the provider's calls.
 */
export function localControl(
  config: LocalConfig,
  controlled: ControlledBackend,
  timing: Timing,
): BackendControl {
  const raw = controlled.inner;
  const seedCtx = seedContext(config, raw, timing);
  const paths = statePaths(config.stateDir);

  const readRecord = async (name: string): Promise<InstanceRecord | undefined> => {
    const text = await raw.readState(undefined, name);
    if (text === undefined) return undefined;
    const d = decodeState(text);
    return d.kind === 'marked' ? d.record : undefined;
  };

  const killOutOfBand = async (name: string) => {
    const rec = await readRecord(name);
    // A garbled state file no longer says which pid is the proxy; its runtime path still does.
    if (!rec) return killByCmdline(`${paths.runtimeDir(name)}/`);
    if (!rec.pid) return;
    const info = await raw.inspect(undefined, rec.pid);
    if (!isOurProcess(info, rec, paths.runtimeDir(name))) return;
    await raw.kill(undefined, rec.pid, 'SIGKILL');
    await stopProcess(seedCtx, name, rec); // waits until it is gone
  };

  return {
    failNext: (step, count, fault) => controlled.failNext(step as Step, count, fault),
    block: (step) => controlled.block(step as Step),
    setUnreachable: (on) => controlled.setMode(on ? 'unreachable' : 'ok'),
    setBusy: (on) => controlled.setMode(on ? 'busy' : 'ok'),
    exhaustCapacity: () => controlled.exhaustPorts(config.bindAddress, config.portRange),
    async breakTarget(_target, condition) {
      if (condition === 'state-dir-unwritable') controlled.failAlways(STEPS.probeStateDir, 'EACCES');
      else if (condition === 'engine-unavailable') controlled.failAlways(STEPS.engineVersion, 'ENOENT');
      else if (condition === 'no-free-port')
        await controlled.exhaustPorts(config.bindAddress, config.portRange);
      else throw new TypeError(`unknown condition ${JSON.stringify(condition)}`);
    },

    async seed(spec: SeedSpec) {
      const { name } = spec;
      if (spec.mark === 'none') {
        await writeFile(paths.stateFile(name), FOREIGN_STATE(name)).catch(async () => {
          await raw.probeStateDir(undefined);
          await writeFile(paths.stateFile(name), FOREIGN_STATE(name));
        });
        return formatId(name);
      }
      const record: InstanceRecord = {
        uid: spec.mark.uid,
        createdAt: spec.mark.createdAt ?? new Date(),
        ...(spec.mark.installation ? { installation: spec.mark.installation } : {}),
        engine: config.engine === 'squid' ? 'squid' : 'node',
        bindAddress: config.bindAddress,
      };
      const state = spec.state ?? 'running';
      if (state === 'exited') {
        await raw.writeState(undefined, name, encodeState(record));
      } else if (state === 'stale-pid') {
        // The pid of a live process that is not the proxy (this test process): never to be signalled.
        await raw.writeState(
          undefined,
          name,
          encodeState({ ...record, port: config.portRange.min, pid: process.pid, startTime: '1' }),
        );
      } else if (state === 'running') {
        await raw.writeState(undefined, name, encodeState(record));
        const running = await ensureRunning(seedCtx, name, record, undefined);
        if (spec.address === false) controlled.setPortDown(running.port as number, true);
      } else {
        throw new TypeError(`unknown seed state ${JSON.stringify(state)}`);
      }
      return formatId(name);
    },

    async corrupt(name) {
      await writeFile(paths.stateFile(name), '{"kind": "egress-proxies.local-instance/v1", "managed": "tr');
    },

    async instances(): Promise<BackendInstanceView[]> {
      const views: BackendInstanceView[] = [];
      for (const name of await raw.listStates(undefined)) {
        const text = await raw.readState(undefined, name);
        if (text === undefined) continue;
        const d = decodeState(text);
        if (d.kind !== 'marked') {
          views.push({ name, id: formatId(name), state: d.kind, running: false, marked: false });
          continue;
        }
        const rec = d.record;
        const info = rec.pid ? await raw.inspect(undefined, rec.pid) : { alive: false };
        const ours = isOurProcess(info, rec, paths.runtimeDir(name));
        views.push({
          name,
          id: formatId(name),
          state: ours ? 'running' : rec.pid && info.alive ? 'stale-pid' : 'exited',
          running: ours,
          marked: true,
          uid: rec.uid,
        });
      }
      return views;
    },

    async resources() {
      return (await raw.listRuntime(undefined)).map((n) => ({
        kind: 'runtime-dir',
        name: `run/${n}`,
        instance: n,
      }));
    },

    calls: () => controlled.calls(),
    clearCalls: () => controlled.clearCalls(),
    inFlight: (step) => controlled.inFlight(step as Step | undefined),

    async removeInstance(name) {
      await killOutOfBand(name);
      await raw.removeRuntime(undefined, name);
      await raw.removeState(undefined, name);
    },
    stopInstance: (name) => killOutOfBand(name),
    removeResources: (name) => raw.removeRuntime(undefined, name),
    async setAddress(name, present) {
      const rec = await readRecord(name);
      if (rec?.port) controlled.setPortDown(rec.port, !present);
    },

    steps: {
      address: STEPS.probePort,
      stop: STEPS.kill,
      remove: STEPS.removeState,
      probe: STEPS.probeStateDir,
    },
    reset: () => controlled.reset(),
  };
}

/**
 * Test-only sweep: SIGKILLs every process whose command line names a path under `prefix` and
 * waits for them to go. The provider never does this; a harness that owns a whole state
 * directory may, for instances whose state file a case garbled on purpose.
 */
export async function killByCmdline(prefix: string): Promise<void> {
  const victims: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const cmdline = await readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '');
    if (cmdline.split('\0').some((arg) => arg.startsWith(prefix))) victims.push(Number(entry));
  }
  for (const pid of victims) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  const deadline = Date.now() + 3_000;
  while (
    victims.some((pid) => existsSync(`/proc/${pid}/cmdline`) && !isZombie(pid)) &&
    Date.now() < deadline
  ) {
    await new Promise((r) => setTimeout(r, 20));
  }
}

function isZombie(pid: number): boolean {
  try {
    return / [ZX] /.test(readFileSync(`/proc/${pid}/stat`, 'utf8').slice(-2000).replace(/^.*\)/s, ') '));
  } catch {
    return true;
  }
}

/** Stops every process a state directory records (identity checked) and removes the directory. */
export async function tearDownStateDir(config: LocalConfig, timing: Timing = DEFAULT_TIMING): Promise<void> {
  const raw = createOsBackend(config.stateDir);
  const ctx = seedContext(config, raw, { ...timing, stopGraceMs: 1_000 });
  for (const name of await raw.listStates(undefined)) {
    const text = await raw.readState(undefined, name);
    const d = text === undefined ? undefined : decodeState(text);
    if (d?.kind === 'marked') await stopProcess(ctx, name, d.record).catch(() => {});
  }
  await killByCmdline(`${statePaths(config.stateDir).runtimeRoot}/`);
  await rm(config.stateDir, { recursive: true, force: true });
}

/**
 * The conformance harness: every fixture is a fresh provider over a fresh state directory on
 * the real host, behind a `ControlledBackend`. Real processes are started (Node engine by
 * default); `dispose` stops whatever a case left and removes the directory.
 */
export function createLocalHarness(options: LocalHarnessOptions): ConformanceHarness {
  return (): ConformanceFixture => {
    const providerName = options.providerName ?? 'local-conformance';
    const stateDir = mkdtempSync(join(tmpdir(), 'local-conformance-'));
    const config = resolveConfig({
      stateDir,
      engine: options.engine ?? 'node',
      portRange: options.portRange,
      ...(options.squidPath ? { squidPath: options.squidPath } : {}),
    });
    const timing: Timing = {
      ...DEFAULT_TIMING,
      // A proxy process that starts slowly on a loaded machine must still count as starting: the
      // wait ends as soon as the port accepts, so a long limit costs nothing when all is well.
      readyTimeoutMs: 60_000,
      stopGraceMs: 3_000,
      ...options.timing,
    };
    const controlled = new ControlledBackend(createOsBackend(stateDir));
    const provider = buildLocalProvider(config, { name: providerName, backend: controlled.backend, timing });
    return {
      provider,
      checker: provider,
      backend: localControl(config, controlled, timing),
      profile: provider.profile,
      config: {
        providerName,
        placement: {},
        validatedPlacement: ['zone'],
        secrets: [],
        stateTable: LOCAL_STATE_TABLE,
        checkTargets: [checkTarget()],
        checkReasons: LOCAL_CHECK_CONDITIONS,
      },
      async dispose() {
        await provider.close();
        await controlled.reset();
        await tearDownStateDir(config, timing);
      },
    };
  };
}
