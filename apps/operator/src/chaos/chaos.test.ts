import { describe, expect, it } from 'vitest';
import { runChaos } from './chaos-run.js';

// `pnpm chaos` runs the full variant (CHAOS_FULL=1): 50 Proxies, 10 restarts. The short seeded
// variant here is part of `npm test`. CHAOS_SEED replays a run.
const full = process.env.CHAOS_FULL === '1';
const seed = Number(process.env.CHAOS_SEED ?? (full ? Date.now() % 100_000 : 1807));

describe('chaos: the controller under injected faults and abrupt restarts', () => {
  it(
    'loses nothing: every Proxy Ready with exactly one instance, no orphans, no secrets in logs',
    async () => {
      const s = await runChaos({
        seed,
        proxies: full ? 50 : 16,
        restarts: full ? 10 : 4,
        deletes: full ? 8 : 3,
        settleLimitMs: full ? 300_000 : 60_000,
        rates: {
          transient: 0.08,
          quota: 0.03,
          permanent: 0.03,
          asyncFailure: 0.05,
          slow: 0.2,
          slowMs: full ? 300 : 60,
        },
      });
      console.log(s.line);
      expect(s.problems).toEqual([]);
      // The run must have exercised what it claims to.
      expect(s.faults.transient + s.faults.quota).toBeGreaterThan(0);
      expect(s.ok).toBe(true);
    },
    full ? 600_000 : 120_000,
  );
});
