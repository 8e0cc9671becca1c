import { describe, expect, it } from 'vitest';
import { type CaseOutcome, conformanceCases, runConformance } from '../src/index.js';
import { createReferenceHarness, REFERENCE_EGRESS_PLAN } from '../src/reference/index.js';
import { EGRESS_MUTANTS } from './mutants/egress-mutants.js';

const EGRESS_CASES = conformanceCases()
  .filter((c) => c.gate.startsWith('profile.egress'))
  .map((c) => c.id);

describe('the planned-egress cases', () => {
  it('are the eight the contract lists, and all pass on the planned reference', async () => {
    expect(EGRESS_CASES.sort()).toEqual(
      [
        'CREATE-24',
        'CREATE-25',
        'CREATE-26',
        'CREATE-27',
        'CREATE-28',
        'CREATE-29',
        'GET-18',
        'OPS-21',
      ].sort(),
    );
    const outcomes = await runConformance(createReferenceHarness({ egressPlan: REFERENCE_EGRESS_PLAN }), {
      only: EGRESS_CASES,
    });
    expect(outcomes.filter((o) => o.status !== 'passed').map((o) => `${o.id}: ${o.reason}`)).toEqual([]);
  }, 120_000);
});

describe('every planned-egress mutant of the reference fails the case that guards its rule', () => {
  for (const m of EGRESS_MUTANTS) {
    it(`${m.name} (${m.breaks}) fails ${m.caughtBy.join(', ')}`, async () => {
      const outcomes = await runConformance(
        createReferenceHarness({ egressPlan: REFERENCE_EGRESS_PLAN, makeProvider: m.make }),
        { only: EGRESS_CASES },
      );
      const byId = new Map<string, CaseOutcome>(outcomes.map((o) => [o.id, o]));
      for (const id of m.caughtBy) expect(byId.get(id)?.status, `${id} against "${m.name}"`).toBe('failed');
    }, 120_000);
  }
});
