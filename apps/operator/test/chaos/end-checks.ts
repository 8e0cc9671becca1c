import { readFileSync } from 'node:fs';
import type { ProxyObject } from '../../src/api/proxy.js';
import type { ChaosProvider, Inventory } from './backends.js';
import type { FaultClass } from './fault-cloud.js';
import type { Incarnation } from './operator-replicas.js';

/** One Prometheus sample: `name{labels} value`. */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export function parseMetrics(text: string): Sample[] {
  const out: Sample[] = [];
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m) continue;
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[l[1]!] = l[2]!;
    out.push({ name: m[1]!, labels, value: Number(m[3]) });
  }
  return out;
}

/** The sum of `name` over every incarnation's last scrape, for the samples `match` keeps. */
export function sumOverIncarnations(
  incarnations: readonly Incarnation[],
  name: string,
  match: (labels: Record<string, string>) => boolean,
): number {
  let total = 0;
  for (const inc of incarnations) {
    if (!inc.metrics) continue;
    for (const s of parseMetrics(inc.metrics)) if (s.name === name && match(s.labels)) total += s.value;
  }
  return total;
}

/** Counts the backends' instances against the live Proxies (before any GC pass). */
export function checkInventory(
  inventories: Inventory[],
  live: ProxyObject[],
  nameOf: (p: ProxyObject) => string,
): { instances: number; orphans: string[]; duplicates: string[]; missing: string[]; leaked: string[] } {
  const result = {
    instances: 0,
    orphans: [] as string[],
    duplicates: [] as string[],
    missing: [] as string[],
    leaked: [] as string[],
  };
  for (const inv of inventories) {
    const wanted = new Set(live.filter((p) => p.spec.provider === inv.provider).map(nameOf));
    for (const [name, n] of inv.names) {
      result.instances += n;
      if (!wanted.has(name)) result.orphans.push(`${inv.provider}/${name}`);
      if (n > 1) result.duplicates.push(`${inv.provider}/${name} x${n}`);
    }
    for (const name of wanted) if (!inv.names.has(name)) result.missing.push(`${inv.provider}/${name}`);
    result.leaked.push(...inv.leaked.map((l) => `${inv.provider}: ${l}`));
  }
  return result;
}

/** Log lines (of every operator process, at debug) that carry any of `secrets`. */
export function secretLines(
  incarnations: readonly Incarnation[],
  secrets: readonly string[],
): { lines: number; hits: string[] } {
  let lines = 0;
  const hits: string[] = [];
  for (const inc of incarnations) {
    for (const line of readFileSync(inc.logPath, 'utf8').split('\n')) {
      if (!line) continue;
      lines++;
      const found = secrets.find((s) => s && line.includes(s));
      if (found) hits.push(`${inc.slot}-${inc.n}: a log line carries a secret (${found.slice(0, 4)}...)`);
    }
  }
  return { lines, hits };
}

export interface KubeEvent {
  reason: string;
  message: string;
  type: string;
  involvedObject: { name: string; kind?: string };
}

/**
 * Metrics and events against what the backends say happened. Returns the disagreements.
 * - The fault cloud answered every QuotaExceeded and Permanent the provider saw (nothing else
 *   produces them), so the operators' error counters of those classes, summed over every
 *   process's last scrape, cannot exceed those answers, and show some when there were several.
 * - Every Ready Proxy has a `Created` and a `Ready` event; every deleted Proxy that had an
 *   instance a `Deleted` one; `QuotaExceeded` and `Failed` events name only Proxies the backends
 *   answered that class for (the fault cloud's; Compute's and Proxmox's faults land on any).
 * - The leader's Proxy phase gauge counts the Ready Proxies; exactly one process leads.
 */
export function checkMetricsAndEvents(o: {
  incarnations: readonly Incarnation[];
  cloudAnswered: Record<FaultClass, number>;
  cloudClassesByName: Map<string, Set<FaultClass>>;
  events: KubeEvent[];
  ready: ProxyObject[];
  deletedWithInstance: string[];
  providerOf: (proxyName: string) => ChaosProvider | undefined;
  backendNameOf: (proxyName: string) => string;
  finalScrapes: (string | undefined)[];
}): string[] {
  const problems: string[] = [];
  for (const cls of ['QuotaExceeded', 'Permanent'] as const) {
    const counted = sumOverIncarnations(
      o.incarnations,
      'egress_proxies_provider_operation_errors_total',
      (l) => l.provider === 'fault' && l.class === cls,
    );
    const answered = o.cloudAnswered[cls];
    if (counted > answered)
      problems.push(
        `metrics count ${counted} ${cls} errors of provider fault, the backend answered ${answered}`,
      );
    if (answered >= 3 && counted === 0)
      problems.push(`the backend answered ${answered} ${cls} errors and no process counted one`);
  }
  const byObject = new Map<string, KubeEvent[]>();
  for (const e of o.events) {
    const list = byObject.get(e.involvedObject.name) ?? [];
    list.push(e);
    byObject.set(e.involvedObject.name, list);
  }
  const has = (name: string, reason: string) => (byObject.get(name) ?? []).some((e) => e.reason === reason);
  for (const p of o.ready) {
    for (const reason of ['Created', 'Ready'])
      if (!has(p.metadata.name, reason))
        problems.push(`${p.metadata.name} is Ready without a ${reason} event`);
  }
  for (const name of o.deletedWithInstance)
    if (!has(name, 'Deleted')) problems.push(`${name} was deleted with an instance and has no Deleted event`);
  for (const e of o.events) {
    const name = e.involvedObject.name;
    if (o.providerOf(name) !== 'fault') continue;
    const classes = o.cloudClassesByName.get(o.backendNameOf(name)) ?? new Set<FaultClass>();
    if (e.reason === 'QuotaExceeded' && !classes.has('QuotaExceeded'))
      problems.push(`${name} has a QuotaExceeded event and the fault cloud never answered it QuotaExceeded`);
    if (e.reason === 'Failed' && !classes.has('Permanent'))
      problems.push(`${name} has a Failed event and the fault cloud never answered it Permanent`);
  }
  const leaders = o.finalScrapes.filter(
    (t) => t && parseMetrics(t).some((s) => s.name === 'leader_election_master_status' && s.value === 1),
  );
  if (leaders.length !== 1) problems.push(`${leaders.length} processes report themselves leader at the end`);
  const gauge = leaders[0]
    ? parseMetrics(leaders[0]).find((s) => s.name === 'egress_proxies_proxies' && s.labels.phase === 'Ready')
        ?.value
    : undefined;
  if (gauge !== o.ready.length)
    problems.push(
      `the leader's egress_proxies_proxies{phase="Ready"} is ${gauge}, ${o.ready.length} Proxies are Ready`,
    );
  return problems;
}
