import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createReference,
  REFERENCE_HOSTS,
  ReferenceBackend,
  referenceConfig,
} from '@egress-proxies/conformance/reference';
import type { CheckResult, Provider } from '@egress-proxies/contract';
import { loggerOf, ProviderRegistry } from '@egress-proxies/provider-utils';
import { afterAll, describe, expect, it } from 'vitest';
import type { Io } from '../src/commands/command.js';
import type { ProviderJson, ProxyJson } from '../src/commands/json-records.js';
import { parseStandaloneFlags } from '../src/commands/standalone-flags.js';
import { showStatus } from '../src/commands/status-run.js';
import { type RunningStandalone, startStandalone } from '../src/standalone/standalone.js';

// Standalone mode over a fake provider (the reference provider under the `local` config type)
// whose create logs download progress while blocked on a gate, and whose Checker can be flipped.
const TOKEN = 'ref-token-progress-secret';
const MiB = 1024 * 1024;
const dir = mkdtempSync(join(tmpdir(), 'ep-sa-progress-'));
const stateDir = join(dir, 'state');
const providersPath = join(dir, 'providers.yaml');
const proxiesPath = join(dir, 'proxies.yaml');
let sa: RunningStandalone | undefined;
afterAll(async () => {
  openGate();
  await sa?.stop();
  rmSync(dir, { recursive: true, force: true });
});

let checkerReady = false;
let openGate: () => void = () => {};
const gate = new Promise<void>((r) => {
  openGate = r;
});
let progressLogged = 0;

function registry(): ProviderRegistry {
  const backend = new ReferenceBackend({ hosts: REFERENCE_HOSTS.map((h) => ({ name: h, token: TOKEN })) });
  return new ProviderRegistry().register({
    type: 'local',
    create: (_config: unknown, ctx: { name: string }) => {
      const { provider: ref } = createReference(ctx.name, referenceConfig(TOKEN), backend);
      const provider: Provider = {
        name: ref.name,
        type: ref.type,
        profile: ref.profile,
        get: (id, o) => ref.get(id, o),
        delete: (id, o) => ref.delete(id, o),
        listByTag: (o) => ref.listByTag(o),
        create: async (req, o) => {
          const log = loggerOf(o);
          for (const bytes of [40 * MiB, 180 * MiB]) {
            log.log(1, 'image download progress', {
              bytes,
              total: 420 * MiB,
              percent: Math.floor((bytes / (420 * MiB)) * 100),
              rateBytesPerSec: 12 * MiB,
            });
            progressLogged++;
          }
          await gate;
          return ref.create(req, o);
        },
      };
      const check = async (): Promise<CheckResult[]> => [
        {
          target: 'host-a',
          address: 'host-a:1',
          ready: checkerReady,
          reason: checkerReady ? 'Ready' : 'EngineUnavailable',
          message: checkerReady ? 'ok' : 'the engine is not installed',
          details: {},
        },
      ];
      return { provider, checker: { check } };
    },
  });
}

function status(output: 'json' | 'table') {
  let out = '';
  const io: Io = { out: (t) => (out += t), err: () => {}, isTTY: false, interrupted: new Promise(() => {}) };
  const flags = parseStandaloneFlags('status', ['--state-dir', stateDir, '--output', output]);
  expect(showStatus(flags, io)).toBe(0);
  return out;
}
const json = () =>
  JSON.parse(status('json')) as {
    proxies: ProxyJson[];
    providers: ProviderJson[];
  };

async function until<T>(what: string, fn: () => T | undefined | false, ms = 15_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}; status: ${status('json')}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('standalone status: provider health rounds and provider progress', () => {
  it('shows the latest progress while create runs, the final state without it, and health after the next interval', async () => {
    writeFileSync(providersPath, '- name: fake\n  type: local\n  local: {stateDir: /var/lib/fake}\n');
    writeFileSync(
      proxiesPath,
      `apiVersion: egress-proxies.dev/v1alpha1
kind: Proxy
metadata: {name: slow}
spec:
  provider: fake
  placement: {zone: alpha, machineType: small, image: debian-12}
  probe: {target: "http://target.test/", interval: 30s, timeout: 2s, retries: 0}
`,
    );
    sa = await startStandalone({
      proxyPaths: [proxiesPath],
      providersPath,
      stateDir,
      registry: registry(),
      healthIntervalMs: 200,
      debounceMs: 50,
      rescanMs: 300,
      pollIntervalMs: 100,
      probeFn: async () => ({ ok: true, egressIP: '203.0.113.9', latencyMs: 1 }),
    });

    // The first health round: the provider is reported not ready with its first failing reason.
    await sa.healthChecked;
    const notReady = await until('the provider not ready in status', () =>
      json().providers.find((p) => p.name === 'fake' && p.ready === false),
    );
    expect(notReady).toMatchObject({
      type: 'provider',
      providerType: 'local',
      summary: '0/1',
      targets: [
        {
          target: 'host-a',
          ready: false,
          reason: 'EngineUnavailable',
          message: 'the engine is not installed',
        },
      ],
    });
    expect(status('table')).toMatch(/^fake\s+local\s+false\s+0\/1\s+host-a: EngineUnavailable/m);

    // While create is blocked, the latest progress line shows in the row (JSON and table); the
    // phase is still the one written before the call (the reconcile writes status when it returns).
    const slow = await until('progress in status', () =>
      json().proxies.find((p) => p.name === 'slow' && p.progress?.includes('42%')),
    );
    expect(progressLogged).toBe(2);
    expect(slow.progress).toBe('image download 42% (180 MiB of 420 MiB, 12 MiB/s)');
    // The typed record keeps the status message and the progress apart.
    expect(slow.message).toMatch(/^creating proxy-\w+ through provider fake since \S+$/);
    // The create runs as a tracked operation: Provisioning, saying since when, with the progress.
    expect(status('table')).toMatch(
      /^slow\s+fake\s+Provisioning\s+creating proxy-\w+ through provider fake since \S+ — image download 42% \(180 MiB of 420 MiB/m,
    );

    // The checker flips: the next round (200 ms later) reports the provider ready.
    checkerReady = true;
    const readyNow = await until('the provider ready in status', () =>
      json().providers.find((p) => p.name === 'fake' && p.ready === true),
    );
    expect(readyNow).toMatchObject({ summary: '1/1', targets: [{ target: 'host-a', ready: true }] });

    // The step ends: the final state, without progress.
    openGate();
    const done = await until('slow Ready', () =>
      json().proxies.find((p) => p.name === 'slow' && p.phase === 'Ready'),
    );
    expect(done.progress).toBeUndefined();
    expect(done.message ?? '').not.toContain('%');
    expect(status('table')).not.toContain('image download');
  });
});
