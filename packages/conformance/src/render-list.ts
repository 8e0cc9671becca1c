import type { CaseGroup } from './case.js';
import { conformanceCases } from './cases/index.js';

const SECTIONS: Record<CaseGroup, string> = {
  create: 'Create',
  get: 'Get',
  delete: 'Delete',
  listByTag: 'ListByTag',
  operations: 'Every operation',
  checker: 'Checker',
};

const cell = (s: string) => s.replaceAll('|', '\\|');

/** The numbered list as markdown tables, one section per operation: the source of docs/conformance-list.md. */
export function renderConformanceList(): string {
  const out: string[] = [];
  for (const [group, heading] of Object.entries(SECTIONS) as [CaseGroup, string][]) {
    out.push(`## ${heading}`, '', '| Id | Case | What it proves | Gated by |', '|---|---|---|---|');
    for (const c of conformanceCases().filter((x) => x.group === group)) {
      out.push(`| \`${c.id}\` | ${cell(c.title)} | ${cell(c.proves)} | ${cell(c.gate)} |`);
    }
    out.push('');
  }
  return out.join('\n');
}
