import type { CheckResult } from '@egress-proxies/contract';
import { describe, expect, it } from 'vitest';
import { referenceHandle } from '../../../test/support/reconcile-fixture.js';
import type { ProviderHealthStatus } from '../../api/provider-health.js';
import { ProviderModuleError } from '../../providers/provider-module-error.js';
import { ProviderSet } from '../../providers/provider-set.js';
import type { HealthStore } from '../store/proxy-store.js';
import { HealthChecker } from './health-checker.js';
import { HealthLoop } from './health-loop.js';

const until = async (what: string, fn: () => boolean, ms = 5000) => {
  const end = Date.now() + ms;
  while (!fn()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
};

describe('HealthLoop', () => {
  it('runs every Checker on the interval, again on a config change, and prunes removed providers', async () => {
    const written = new Map<string, ProviderHealthStatus>();
    const store: HealthStore = {
      writeHealth: async (p, st) => {
        written.set(p, st);
      },
      pruneHealth: async (keep) => {
        for (const k of [...written.keys()]) if (!keep.includes(k)) written.delete(k);
      },
      providerEvent: async () => {},
    };
    let ready = false;
    let checks = 0;
    const result = (): CheckResult[] => [
      {
        target: 'host-1',
        address: 'h1:1',
        ready,
        reason: ready ? 'Ready' : 'EngineUnavailable',
        message: ready ? 'ok' : 'no engine',
        details: {},
      },
    ];
    const { provider } = referenceHandle();
    const set = new ProviderSet(() => ({
      provider,
      checker: {
        check: async () => {
          checks++;
          return result();
        },
      },
    }));
    const entry = (n: string, dir = '/a') => ({ name: n, type: 'local', config: { stateDir: dir } }) as never;
    await set.apply([entry('ref')]);
    const loop = new HealthLoop({
      providers: set,
      checker: new HealthChecker({ store }),
      store,
      intervalMs: 100,
    });
    await loop.start();
    expect(written.get('ref')).toMatchObject({ ready: false, summary: '0/1' });
    ready = true;
    await until('ready after the next interval', () => written.get('ref')?.ready === true);
    expect(written.get('ref')?.summary).toBe('1/1');
    await loop.stop();

    // A long interval: only the config change can cause the next check.
    const slow = new HealthLoop({
      providers: set,
      checker: new HealthChecker({ store }),
      store,
      intervalMs: 3_600_000,
    });
    await slow.start();
    const before = checks;
    ready = false;
    await set.apply([entry('ref', '/b')]);
    await until('a check after the change', () => checks > before && written.get('ref')?.ready === false);
    await set.apply([]);
    await slow.checkNow();
    expect(written.has('ref')).toBe(false);
    await slow.stop();
  });

  it('writes a not-Ready ProviderHealth naming the entry, the module and the cause for a module that failed to load', async () => {
    const written = new Map<string, ProviderHealthStatus>();
    const store: HealthStore = {
      writeHealth: async (p, st) => {
        written.set(p, st);
      },
      pruneHealth: async (keep) => {
        for (const k of [...written.keys()]) if (!keep.includes(k)) written.delete(k);
      },
      providerEvent: async () => {},
    };
    const set = new ProviderSet(() => ({ provider: referenceHandle().provider }));
    const failure = new ProviderModuleError(
      { name: 'foo-a', type: 'foo', index: 0 },
      './foo.mjs',
      'threw on import: boom at import',
    );
    set.setFailures([failure]);
    const loop = new HealthLoop({
      providers: set,
      checker: new HealthChecker({ store }),
      store,
      intervalMs: 3_600_000,
    });
    await loop.start();
    const health = written.get('foo-a');
    expect(health).toMatchObject({ type: 'foo', ready: false });
    expect(health?.conditions).toEqual([
      expect.objectContaining({
        type: 'Ready',
        status: 'False',
        reason: 'ModuleLoadFailed',
        message:
          'provider "foo-a" (providers[0], type "foo"): module "./foo.mjs" threw on import: boom at import',
      }),
    ]);
    // Fixed on reload: its health goes with the failure (a prune keeps only configured names).
    set.setFailures([]);
    await loop.checkNow();
    expect(written.has('foo-a')).toBe(false);
    await loop.stop();
  });
});
