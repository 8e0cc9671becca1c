import { describe, expect, it, vi } from 'vitest';
import { type CaseOutcome, conformanceCases, runConformance } from '../src/index.js';
import { createReferenceHarness } from '../src/reference/index.js';
import { ADOPTION_MUTANTS } from './mutants/adoption-mutants.js';
import { LIFECYCLE_MUTANTS } from './mutants/lifecycle-mutants.js';
import { MUTANTS } from './mutants/mutants.js';
import { V2_MUTANTS } from './mutants/v2-mutants.js';
import { V3_MUTANTS } from './mutants/v3-mutants.js';
import { V4_MUTANTS } from './mutants/v4-mutants.js';
import { V5_MUTANTS } from './mutants/v5-mutants.js';
import { V7_MUTANTS } from './mutants/v7-mutants.js';

const ids = new Set(conformanceCases().map((c) => c.id));

describe('every mutant of the reference provider fails the cases that guard its rule', () => {
  for (const m of [
    ...MUTANTS,
    ...V2_MUTANTS,
    ...ADOPTION_MUTANTS,
    ...LIFECYCLE_MUTANTS,
    ...V3_MUTANTS,
    ...V4_MUTANTS,
    ...V5_MUTANTS,
    ...V7_MUTANTS,
  ]) {
    it(`${m.name} (${m.breaks}) fails ${m.caughtBy.join(', ')}`, async () => {
      for (const id of m.caughtBy) expect(ids.has(id), `unknown case id ${id}`).toBe(true);
      // One mutant prints on purpose; keep the report readable (OPS-04 swaps the console for its own capture).
      vi.spyOn(console, 'log').mockImplementation(() => {});
      const outcomes = await runConformance(createReferenceHarness({ ...m.harness, makeProvider: m.make }));
      const byId = new Map<string, CaseOutcome>(outcomes.map((o) => [o.id, o]));
      for (const id of m.caughtBy) {
        expect(byId.get(id)?.status, `${id} against "${m.name}"`).toBe('failed');
      }
      // A broken provider makes cases wait out their bounds; the whole kit runs once per mutant.
    }, 600_000);
  }
});
