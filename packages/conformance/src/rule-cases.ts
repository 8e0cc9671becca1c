import { conformanceCases } from './cases/index.js';

/** One contract rule (a section of docs/contract.md 2, or a section 4 axis) and the cases that guard it. */
export interface RuleCases {
  /** `2.1`, `2.4`, ... or `axis: readiness`. */
  readonly rule: string;
  readonly summary: string;
  readonly cases: readonly string[];
}

/** Which cases fail when a rule is broken: the source of the rule -> cases table in docs/contract.md. */
export const RULE_CASES: readonly RuleCases[] = Object.freeze([
  {
    rule: '2.1',
    summary: 'create is idempotent and resumable',
    cases: ['CREATE-01', 'CREATE-02', 'CREATE-10', 'CREATE-12', 'CREATE-13'],
  },
  {
    rule: '2.1',
    summary:
      'a blocking create fails (Transient) on a machine that crashes or never runs, and the retry resumes',
    cases: ['CREATE-19', 'OPS-08'],
  },
  {
    rule: '2.1',
    summary: 'the adoption guard, in every state and for unreadable marks',
    cases: ['CREATE-05', 'CREATE-06', 'CREATE-09', 'CREATE-14', 'CREATE-15', 'GET-14'],
  },
  {
    rule: '2.1',
    summary: 'placement and request validated first, naming the bad and the allowed values',
    cases: ['CREATE-04', 'CREATE-18', 'CREATE-21'],
  },
  {
    rule: '2.1',
    summary: 'a placement field the provider defaults may be left out; no cloud-init is delivered as none',
    cases: ['CREATE-22', 'CREATE-23'],
  },
  {
    rule: '2.1',
    summary: 'createdAt written once; never NotFound from create',
    cases: ['CREATE-16', 'CREATE-08'],
  },
  {
    rule: '2.1',
    summary: 'cloud-init delivered byte for byte, never logged',
    cases: ['CREATE-17', 'OPS-03'],
  },
  {
    rule: '2.1',
    summary: 'the mark is escaped: markup in the uid and the installation reads back exactly',
    cases: ['CREATE-20'],
  },
  {
    rule: '2.2',
    summary: 'get reads the backend; only a real absence is NotFound',
    cases: ['GET-01', 'GET-02', 'GET-03', 'GET-07', 'GET-11', 'GET-12', 'OPS-08'],
  },
  {
    rule: '2.2',
    summary: 'malformed or unconfigured IDs are Permanent INVALID_ID',
    cases: ['GET-08', 'GET-09', 'GET-13', 'DELETE-01'],
  },
  {
    rule: '2.3',
    summary: 'delete of something absent is success, parts included',
    cases: ['DELETE-02', 'DELETE-03', 'DELETE-05', 'DELETE-06', 'DELETE-07', 'DELETE-09', 'DELETE-12'],
  },
  {
    rule: '2.3',
    summary:
      'a delete cut off halfway is retryable and the next one leaves nothing; a waiting delete that resolved left nothing',
    cases: ['DELETE-11', 'OPS-08'],
  },
  {
    rule: '2.3',
    summary: "delete leaves what is not ours alone (another instance's parts too) and stops before removing",
    cases: ['DELETE-03', 'DELETE-04', 'DELETE-08', 'GET-14'],
  },
  {
    rule: '2.4',
    summary:
      'listByTag: every marked instance of every installation, the four GC fields, no per-instance calls',
    cases: ['LIST-01', 'LIST-02', 'LIST-03', 'LIST-07', 'LIST-11'],
  },
  {
    rule: '2.4',
    summary: 'listByTag: partial failures, unreadable entries, never an empty "nothing exists"',
    cases: ['LIST-04', 'LIST-05', 'LIST-08'],
  },
  {
    rule: '2.4',
    summary: "secondary resources: listed when orphaned, one ID and kind per part, never a live instance's",
    cases: ['LIST-06', 'LIST-09', 'LIST-10'],
  },
  {
    rule: '2.5',
    summary: 'every error a classified ProviderError with the configured name, naming the bad value',
    cases: ['OPS-02', 'OPS-08', 'CREATE-07', 'GET-08', 'DELETE-01'],
  },
  {
    rule: '2.6',
    summary: 'cancellation: prompt, queued calls too, resumable',
    cases: ['OPS-01', 'OPS-05', 'OPS-10', 'CREATE-13'],
  },
  {
    rule: '2.7',
    summary:
      'concurrency: same name serialised (a third call too), different names parallel, aborts isolated',
    cases: ['CREATE-10', 'DELETE-10', 'OPS-11', 'OPS-12', 'OPS-20'],
  },
  { rule: '2.8', summary: 'construction never touches the backend', cases: ['OPS-06'] },
  {
    rule: '2.9',
    summary: 'logging tiers, silence by default, no secrets in lines on any path',
    cases: ['OPS-03', 'OPS-04', 'OPS-08'],
  },
  {
    rule: '2.9',
    summary:
      "lines inside a call carry that call's trace and span IDs; a backend call's line names it, its duration and its error",
    cases: ['OPS-16', 'OPS-17'],
  },
  {
    rule: '2.9',
    summary:
      "lines about an instance carry `provider` and `name` on every path, a target left out of a listing is named; a failed backend call's line carries the backend's code and the error",
    cases: ['OPS-18', 'OPS-19', 'LIST-04'],
  },
  {
    rule: '2.10',
    summary:
      "backend calls are spans under the caller's span; failed spans ERROR; every span ends; no secrets",
    cases: ['OPS-13', 'OPS-14', 'OPS-15'],
  },
  {
    rule: '2.11',
    summary: 'checker: one result per target, concurrent, Timeout, reasons',
    cases: ['CHECK-01', 'CHECK-02', 'CHECK-03', 'CHECK-04', 'CHECK-05', 'CHECK-06'],
  },
  {
    rule: '2.12',
    summary: 'close: safe twice, every call after it Permanent PROVIDER_CLOSED',
    cases: ['OPS-07', 'OPS-09'],
  },
  {
    rule: 'axis: readiness, createReturn',
    summary: 'a blocking create returns running, and fails on a machine that never runs',
    cases: ['CREATE-03', 'CREATE-11', 'CREATE-19'],
  },
  {
    rule: 'axis: ipSource',
    summary: 'running without an address, a failing address source',
    cases: ['GET-04', 'GET-05', 'GET-06'],
  },
  {
    rule: 'axis: gcMark',
    summary:
      'unmarked (or managed="false", or another tool\'s look-alike) instances refused, skipped, left alone; written marks escaped and read in any layout',
    cases: ['CREATE-06', 'GET-11', 'LIST-01', 'DELETE-08', 'GET-14', 'GET-16', 'CREATE-20', 'GET-17'],
  },
  {
    rule: 'axis: createdAt',
    summary: 'the written or backend time read back; an unparsable one reads as absent',
    cases: ['GET-07', 'CREATE-16', 'GET-15'],
  },
  {
    rule: 'axis: listPartial, listSkipsUnreadable',
    summary: 'the declared policies hold',
    cases: ['LIST-04', 'LIST-05', 'LIST-08'],
  },
  {
    rule: 'axis: quota',
    summary: 'out of capacity is QuotaExceeded at any create step',
    cases: ['CREATE-07', 'OPS-08'],
  },
  {
    rule: 'axis: egress',
    summary:
      'planned: distinct addresses (sequential, concurrent, a create retried after a crash), freed after delete, read back from the mark by a restarted provider, exhaustion QuotaExceeded naming the plan, the static network-config on the NIC, the plan kept out of logs',
    cases: ['CREATE-24', 'CREATE-25', 'CREATE-26', 'CREATE-27', 'CREATE-28', 'CREATE-29', 'GET-18', 'OPS-21'],
  },
  { rule: 'axis: states', summary: 'the state table covers exactly the declared states', cases: ['GET-10'] },
  {
    rule: 'axis: secondaryResources',
    summary: 'parts removed, listed and spared as declared',
    cases: ['DELETE-03', 'DELETE-09', 'LIST-06', 'LIST-10'],
  },
  {
    rule: 'axis: deleteReturn',
    summary: 'gone after delete (polled for returns-early), also after an injected fault',
    cases: ['GET-01', 'DELETE-02', 'DELETE-11', 'OPS-08'],
  },
  {
    rule: 'axis: timeouts, credentials',
    summary: 'timeout and unreadable credentials are Transient, rejected ones Permanent',
    cases: ['OPS-08'],
  },
  {
    rule: 'axis: childSpans, logging',
    summary: 'spans where the profile declares them; trace IDs in lines where it logs',
    cases: ['OPS-13', 'OPS-14', 'OPS-15', 'OPS-16', 'OPS-17'],
  },
]);

/** The rule -> cases table as markdown, between the rule-cases markers of docs/contract.md. */
export function renderRuleCases(): string {
  const out = ['| Rule | What | Cases |', '|---|---|---|'];
  for (const r of RULE_CASES)
    out.push(`| ${r.rule} | ${r.summary} | ${r.cases.map((c) => `\`${c}\``).join(', ')} |`);
  return `${out.join('\n')}\n`;
}

/** Problems with the table: unknown case ids, and cases no rule names. */
export function ruleCaseProblems(): string[] {
  const ids = new Set(conformanceCases().map((c) => c.id));
  const named = new Set(RULE_CASES.flatMap((r) => r.cases));
  return [
    ...[...named].filter((id) => !ids.has(id)).map((id) => `unknown case ${id}`),
    ...[...ids].filter((id) => !named.has(id)).map((id) => `case ${id} guards no rule`),
  ];
}
