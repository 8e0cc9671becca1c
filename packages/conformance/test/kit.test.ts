import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Instance, transientError } from '@egress-proxies/contract';
import { describe, expect, it } from 'vitest';
import {
  type ConformanceHarness,
  conformanceCases,
  describeProviderConformance,
  RULE_CASES,
  renderConformanceList,
  ruleCaseProblems,
  runConformance,
  type SuiteApi,
} from '../src/index.js';
import { createReferenceHarness, type ReferenceBackend, ReferenceProvider } from '../src/reference/index.js';
import { MUTANTS } from './mutants/mutants.js';

const readDoc = () => readFileSync(join(import.meta.dirname, '../../../docs/conformance-list.md'), 'utf8');

/** The cells of every markdown table row, trimmed, with escaped pipes restored (formatting-proof). */
function tableRows(doc: string): string[][] {
  return doc
    .split('\n')
    .filter((l) => l.startsWith('|') && !/^\|[\s:|-]+\|$/.test(l))
    .map((l) =>
      l
        .slice(1, -1)
        .split(/(?<!\\)\|/)
        .map((c) => c.trim().replaceAll('\\|', '|')),
    );
}

describe('the case list', () => {
  const cases = conformanceCases();

  it('has unique, stable-looking ids and a title, a proof and a gate for every case', () => {
    const ids = cases.map((c) => c.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const c of cases) {
      expect(c.id).toMatch(/^(CREATE|GET|DELETE|LIST|OPS|CHECK)-\d\d$/);
      expect(c.title.length).toBeGreaterThan(10);
      expect(c.proves.length).toBeGreaterThan(10);
      expect(c.gate.length).toBeGreaterThan(0);
    }
    expect(renderConformanceList()).toContain('| `CREATE-01` | the same request ten times');
  });

  it('is what docs/conformance-list.md documents, case for case', () => {
    const documented = tableRows(readDoc()).filter((r) => /^`[A-Z]+-\d\d`$/.test(r[0] ?? ''));
    expect(documented).toEqual(cases.map((c) => [`\`${c.id}\``, c.title, c.proves, c.gate]));
  });
});

describe('runConformance', () => {
  it('passes every case on the reference provider with the other list-partial policy', async () => {
    const outcomes = await runConformance(createReferenceHarness({ listPartial: 'omit-unreachable' }));
    const bad = outcomes.filter((o) => o.status !== 'passed').map((o) => `${o.id}: ${o.reason}`);
    // Three hosts: every placement field is required, so none is left out (the one-host suite runs it).
    // No egress plan: the planned-egress cases skip (the planned suite runs them).
    const shared = 'profile.egress is shared, not planned';
    expect(bad).toEqual([
      'CREATE-22: config.requiredPlacement names every placement field the harness sets: none is defaulted',
      `CREATE-24: ${shared}`,
      `CREATE-25: ${shared}`,
      `CREATE-26: ${shared}`,
      `CREATE-27: ${shared}`,
      `CREATE-28: ${shared}`,
      `CREATE-29: ${shared}`,
      `GET-18: ${shared}`,
      `OPS-21: ${shared}`,
    ]);
    expect(outcomes).toHaveLength(conformanceCases().length);
  });

  it('runs only the selected cases and reports excluded ones as skipped with the reason', async () => {
    const outcomes = await runConformance(createReferenceHarness(), {
      only: ['CREATE-01', 'GET-01'],
      exclude: { 'GET-01': 'known gap, tracked elsewhere' },
    });
    expect(outcomes.map((o) => [o.id, o.status])).toEqual([
      ['CREATE-01', 'passed'],
      ['GET-01', 'skipped'],
    ]);
    expect(outcomes[1]?.reason).toContain('known gap');
  });

  it('rejects an unknown case id instead of silently running nothing', async () => {
    await expect(runConformance(createReferenceHarness(), { only: ['CREATE-99'] })).rejects.toThrow(
      /CREATE-99/,
    );
  });

  it('deletes everything a case made even when the case fails', async () => {
    const backends: ReferenceBackend[] = [];
    const nonIdempotent = MUTANTS.find((m) => m.name === 'non-idempotent create')!;
    const harness = createReferenceHarness({
      makeProvider: (args) => {
        backends.push(args.backend);
        return nonIdempotent.make(args);
      },
    });
    const outcomes = await runConformance(harness, { only: ['CREATE-01', 'CREATE-10', 'CREATE-11'] });
    expect(outcomes.map((o) => o.status)).toEqual(['failed', 'failed', 'failed']);
    for (const b of backends) {
      expect(b.domains()).toEqual([]);
      expect(b.volumes().filter((v) => v.kind !== 'base')).toEqual([]);
    }
  });

  it('fails a passing case whose leftovers cannot be deleted, naming them', async () => {
    class CannotDelete extends ReferenceProvider {
      override async delete(): Promise<void> {
        throw transientError('backend refuses deletes today', { provider: this.name, operation: 'delete' });
      }
    }
    const harness = createReferenceHarness({
      makeProvider: (args) => ({ provider: new CannotDelete(args) }),
    });
    const [outcome] = await runConformance(harness, { only: ['CREATE-09'] });
    expect(outcome?.status).toBe('failed');
    expect(outcome?.reason).toMatch(
      /CREATE-09 cleanup could not delete everything: delete hosts\/alpha\/domains\/proxy-/,
    );
  });

  it('fails a case whose provider hangs, within the case bound', async () => {
    class HangingGet extends ReferenceProvider {
      override get(): Promise<Instance> {
        return new Promise<Instance>(() => {});
      }
    }
    const harness = createReferenceHarness({ makeProvider: (args) => ({ provider: new HangingGet(args) }) });
    const [outcome] = await runConformance(harness, { only: ['GET-05'], timeoutMs: 12_000 });
    expect(outcome?.status).toBe('failed');
    expect(outcome?.reason).toMatch(/did not return/);
  });

  it('fails the span case on a call that ignores its abort at the abort bound, not at the stall bound', async () => {
    const ignoresAbort = MUTANTS.find((m) => m.name === 'ignores abort');
    if (!ignoresAbort) throw new Error('the "ignores abort" mutant is gone from the table');
    const harness = createReferenceHarness({ ...ignoresAbort.harness, makeProvider: ignoresAbort.make });
    const [outcome] = await runConformance(harness, { only: ['OPS-14'] });
    expect(outcome?.status).toBe('failed');
    // Before, OPS-14 waited on the held call until its 120 s no-progress bound, twice over.
    expect(outcome?.reason).toMatch(/aborted at .*: the call did not return within 1 s of its abort/);
  });
});

describe('describeProviderConformance', () => {
  function recordingApi() {
    const tests: string[] = [];
    const skipped: string[] = [];
    const pending: Promise<void>[] = [];
    const api: SuiteApi = {
      describe: (_name, fn) => {
        const r = fn();
        if (r) pending.push(r);
      },
      it: Object.assign((name: string) => void tests.push(name), {
        skip: (name: string) => void skipped.push(name),
      }),
      afterEach: () => {},
    };
    return { api, tests, skipped, pending };
  }

  it('declares non-applicable cases skipped with the reason in the title, and prints the reasons', async () => {
    const base = createReferenceHarness();
    const harness: ConformanceHarness = async (info) => {
      const f = await base(info);
      const { checker: _dropped, ...rest } = f;
      return { ...rest, profile: { ...f.profile, quota: 'absent', createReturn: 'submit' } };
    };
    const printed: string[] = [];
    const { api, tests, skipped, pending } = recordingApi();
    describeProviderConformance(harness, { api, print: (l) => printed.push(l) });
    while (pending.length) await pending.shift();
    const skippedIds = skipped.map((t) => t.slice(0, t.indexOf(' ')));
    expect(skippedIds.sort()).toEqual([
      'CHECK-01',
      'CHECK-02',
      'CHECK-03',
      'CHECK-04',
      'CHECK-05',
      'CHECK-06',
      'CREATE-03',
      'CREATE-07',
      'CREATE-11',
      'CREATE-19',
      'CREATE-22',
      'CREATE-24',
      'CREATE-25',
      'CREATE-26',
      'CREATE-27',
      'CREATE-28',
      'CREATE-29',
      'GET-18',
      'OPS-21',
    ]);
    expect(skipped.find((t) => t.startsWith('CREATE-07'))).toMatch(/\[skipped: profile\.quota is "absent"/);
    expect(skipped.find((t) => t.startsWith('CHECK-01'))).toMatch(/no Checker/);
    expect(tests).toHaveLength(conformanceCases().length - skipped.length);
    expect(tests.every((t) => /^[A-Z]+-\d\d /.test(t))).toBe(true);
    expect(printed.join('\n')).toMatch(
      /19 cases skipped[\s\S]*CREATE-03 skipped: profile\.createReturn is "submit"/,
    );
  });
});

describe('skip reasons that say why a case cannot apply', () => {
  const byId = (id: string) => conformanceCases().find((c) => c.id === id)!;

  it('GET-06 tells an address that comes with the instance read from a control the harness forgot', async () => {
    const f = await createReferenceHarness()({ caseId: 'collect' });
    const { address: _gone, ...steps } = f.backend.steps;
    const noStep = { ...f, backend: { ...f.backend, steps } };
    try {
      expect(byId('GET-06').applies(f)).toBe(true);
      expect(byId('GET-06').applies(noStep)).toBe('the backend control names no address step');
      expect(
        byId('GET-06').applies({ ...noStep, profile: { ...f.profile, ipSource: 'assigned-at-create' } }),
      ).toMatch(/^profile\.ipSource is "assigned-at-create": the address comes in the instance read itself/);
      // An address step still runs the case whatever the profile says (a local port probe is one).
      expect(
        byId('GET-06').applies({ ...f, profile: { ...f.profile, ipSource: 'assigned-at-create' } }),
      ).toBe(true);
    } finally {
      await f.dispose?.();
    }
  });

  it('CHECK-02 names the single target it was given', async () => {
    const f = await createReferenceHarness()({ caseId: 'collect' });
    try {
      expect(byId('CHECK-02').applies(f)).toBe(true);
      const one = { ...f, config: { ...f.config, checkTargets: ['the-project'] } };
      expect(byId('CHECK-02').applies(one)).toBe(
        'the harness lists one Checker target ("the-project"): there is no second target to run alongside it',
      );
    } finally {
      await f.dispose?.();
    }
  });
});

describe('the broken-variant table in docs/conformance-list.md', () => {
  it('lists every mutant the kit tests, with the cases that catch it', () => {
    const rows = tableRows(readDoc());
    for (const m of MUTANTS) {
      const row = rows.find((r) => r[0] === m.name);
      expect(row, m.name).toBeDefined();
      expect(row?.[2]).toBe(m.caughtBy.map((id) => `\`${id}\``).join(', '));
    }
  });
});

describe('the rule -> cases table', () => {
  it('names only known cases, and every case guards at least one rule', () => {
    expect(ruleCaseProblems()).toEqual([]);
  });

  it('is what docs/contract.md shows between its rule-cases markers', () => {
    const doc = readFileSync(join(import.meta.dirname, '../../../docs/contract.md'), 'utf8');
    const table = doc.slice(doc.indexOf('<!-- rule-cases:start -->'), doc.indexOf('<!-- rule-cases:end -->'));
    const documented = tableRows(table).slice(1);
    expect(documented).toEqual(
      RULE_CASES.map((r) => [r.rule, r.summary, r.cases.map((c) => `\`${c}\``).join(', ')]),
    );
  });
});
