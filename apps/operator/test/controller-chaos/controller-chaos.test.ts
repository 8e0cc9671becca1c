import { describe, expect, it } from 'vitest';
import { runChaos } from './chaos-run.js';

// A fast in-process check of the controller alone (seconds, no processes): the reference
// provider with faults at every call and abrupt controller restarts over one store. The run
// against the real API server, with operator processes killed with SIGKILL, is test/chaos
// (`pnpm chaos` for the full one). CHAOS_SEED replays a run.
const seed = Number(process.env.CHAOS_SEED ?? 1807);

describe('the controller under injected faults and abrupt restarts (in-process)', () => {
  it('loses nothing: every Proxy Ready with exactly one instance, no orphans, no secrets in logs', async () => {
    const s = await runChaos({
      seed,
      proxies: 16,
      restarts: 4,
      deletes: 3,
      settleLimitMs: 60_000,
      rates: {
        transient: 0.08,
        quota: 0.03,
        permanent: 0.03,
        asyncFailure: 0.05,
        slow: 0.2,
        slowMs: 60,
        hang: 0.02,
      },
    });
    console.log(s.line);
    expect(s.problems).toEqual([]);
    // The run must have exercised what it claims to.
    expect(s.faults.transient + s.faults.quota).toBeGreaterThan(0);
    // A create that hung (the edited Proxy's, at least) and the backoff after failed creates.
    expect(s.faults.hang).toBeGreaterThan(0);
    expect(s.backoffGaps).toBeGreaterThan(0);
    expect(s.ok).toBe(true);
  }, 120_000);
});
