import { describe, expect, it } from 'vitest';
import { CONTROL_PLANE_BUDGET_MS } from '../support/cluster.js';
import { runChaos } from './chaos-run.js';

// `pnpm chaos` runs the full seeded run (CHAOS_FULL=1): 50 Proxies, 10 kills. The short variant
// is part of `npm test`. CHAOS_SEED replays a run.
const full = process.env.CHAOS_FULL === '1';
const seed = Number(process.env.CHAOS_SEED ?? (full ? Date.now() % 100_000 : 1807));

describe('chaos: operator processes killed, the API server restarted, faults everywhere', () => {
  it(
    'loses nothing: every Proxy Ready with exactly one instance, no orphans or leaks, no secrets in logs',
    async () => {
      const s = await runChaos({
        seed,
        proxies: full ? 50 : 12,
        kills: full ? 10 : 3,
        deletes: full ? 8 : 2,
        chaosMs: full ? 240_000 : 45_000,
        stallMs: full ? 240_000 : 120_000,
        progress: (line) => console.log(line),
      });
      console.log(s.line);
      expect(s.problems).toEqual([]);
      expect(s.ok).toBe(true);
    },
    // The control plane may be built from Go modules first on a cold machine.
    CONTROL_PLANE_BUDGET_MS,
  );
});
