import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { ProxyObject } from '../../src/api/proxy.js';
import {
  checkInventory,
  checkMetricsAndEvents,
  type KubeEvent,
  parseMetrics,
  secretLines,
} from './end-checks.js';
import type { Incarnation } from './operator-replicas.js';

// The chaos run's end checks on made-up inputs: each catches what it is there for, so a green
// run means the backends, logs, metrics and events were looked at and found right.
const dir = mkdtempSync(join(tmpdir(), 'ep-chaos-checks-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const proxy = (name: string, provider: string): ProxyObject => ({
  metadata: { name, namespace: 'chaos' },
  spec: { provider },
  status: { phase: 'Ready' },
});

function incarnation(n: number, log: string, metrics?: string): Incarnation {
  const logPath = join(dir, `op-${n}.log`);
  writeFileSync(logPath, log);
  return { slot: 'a', n, pid: 1, logPath, ...(metrics ? { metrics } : {}) };
}

const errors = (cls: string, n: number) =>
  `egress_proxies_provider_operation_errors_total{provider="fault",operation="create",class="${cls}"} ${n}\n`;
const leader = (ready: number) =>
  `leader_election_master_status{name="chaos"} 1\negress_proxies_proxies{phase="Ready"} ${ready}\n`;

describe('the chaos run end checks', () => {
  it('count orphans, duplicates, missing instances and leaks against the live Proxies', () => {
    const names = (...n: string[]) => new Map(n.map((x) => [x, x === 'dup' ? 2 : 1]));
    const r = checkInventory(
      [
        { provider: 'pve', names: names('a', 'orphan', 'dup'), leaked: ['seed pve1/iso/x-seed.iso'] },
        { provider: 'local', names: names(), leaked: [] },
      ],
      [proxy('a', 'pve'), proxy('dup', 'pve'), proxy('gone', 'local')],
      (p) => p.metadata.name,
    );
    expect(r).toEqual({
      instances: 4,
      orphans: ['pve/orphan'],
      duplicates: ['pve/dup x2'],
      missing: ['local/gone'],
      leaked: ['pve: seed pve1/iso/x-seed.iso'],
    });
  });

  it('find a secret in any line of any process log, and count the lines', () => {
    const r = secretLines(
      [incarnation(1, '{"msg":"fine"}\n{"msg":"token s3cret-x"}\n'), incarnation(2, '{"msg":"ok"}\n')],
      ['s3cret-x', 'other'],
    );
    expect(r.lines).toBe(3);
    expect(r.hits).toHaveLength(1);
    expect(r.hits[0]).not.toContain('s3cret-x');
  });

  it('catch metrics above what the backend answered, missing events, events without a cause, and no single leader', () => {
    const ready = [proxy('c00', 'fault'), proxy('c01', 'pve')];
    const events: KubeEvent[] = [
      { reason: 'Created', message: '', type: 'Normal', involvedObject: { name: 'c00' } },
      { reason: 'Ready', message: '', type: 'Normal', involvedObject: { name: 'c00' } },
      { reason: 'Created', message: '', type: 'Normal', involvedObject: { name: 'c01' } },
      { reason: 'QuotaExceeded', message: '', type: 'Warning', involvedObject: { name: 'c00' } },
    ];
    const problems = checkMetricsAndEvents({
      incarnations: [
        incarnation(3, '', errors('QuotaExceeded', 2)),
        incarnation(4, '', errors('QuotaExceeded', 1)),
      ],
      cloudAnswered: { Transient: 0, QuotaExceeded: 2, Permanent: 5 },
      cloudClassesByName: new Map(),
      events,
      ready,
      deletedWithInstance: ['c05'],
      providerOf: (n) => (n === 'c00' ? 'fault' : 'pve'),
      backendNameOf: (n) => n,
      finalScrapes: [leader(1), leader(2)],
    });
    expect(problems).toEqual([
      'metrics count 3 QuotaExceeded errors of provider fault, the backend answered 2',
      'the backend answered 5 Permanent errors and no process counted one',
      'c01 is Ready without a Ready event',
      'c05 was deleted with an instance and has no Deleted event',
      'c00 has a QuotaExceeded event and the fault cloud never answered it QuotaExceeded',
      '2 processes report themselves leader at the end',
      `the leader's egress_proxies_proxies{phase="Ready"} is 1, 2 Proxies are Ready`,
    ]);
  });

  it('parse the Prometheus text format', () => {
    expect(parseMetrics('# HELP x y\nx_total{a="1",b="q\\"t"} 3\nplain 4.5\n')).toEqual([
      { name: 'x_total', labels: { a: '1', b: 'q\\"t' }, value: 3 },
      { name: 'plain', labels: {}, value: 4.5 },
    ]);
  });
});
