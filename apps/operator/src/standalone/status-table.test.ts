import { describe, expect, it } from 'vitest';
import { proxyRecord } from '../../test/support/proxy-record.js';
import {
  plainLine,
  plainPoolLine,
  plainProviderLine,
  poolRowOf,
  providerRowOf,
  renderPoolTable,
  renderProviderTable,
  renderTable,
  rowOf,
} from './status-table.js';

const rec = proxyRecord;

describe('the status table', () => {
  it('shows ip:port for a Ready proxy and aligns the columns', () => {
    const rows = [
      rowOf(
        rec({
          status: { phase: 'Ready', healthy: true, message: 'ready' },
          endpoint: { host: '127.0.0.1', port: 21001 },
        }),
      ),
      rowOf(rec({ namespace: 'team', name: 'longer-name', status: { phase: 'Pending' } })),
    ];
    expect(renderTable(rows)).toEqual([
      'NAME              PROVIDER  PHASE    ADDRESS          HEALTHY  MESSAGE',
      'p                 local     Ready    127.0.0.1:21001  true     ready',
      'team/longer-name  local     Pending                            ',
    ]);
    expect(plainLine(rows[0]!)).toBe('p local Ready 127.0.0.1:21001 healthy=true ready');
  });

  it("keeps a plain line one line whatever the provider's message holds", () => {
    const row = rowOf(
      rec({ status: { phase: 'Failed', message: 'backend said:\nquota\x1b[31m exceeded\r' } }),
    );
    expect(plainLine(row)).toBe('p local Failed - healthy=- backend said: quota\ufffd[31m exceeded');
  });

  it('shows how long a slow step has taken, and Deleting for a Proxy being removed', () => {
    const now = Date.parse('2026-01-01T00:01:00Z');
    const status = {
      phase: 'Provisioning' as const,
      conditions: [
        {
          type: 'Provisioned',
          status: 'False' as const,
          reason: 'Created',
          lastTransitionTime: '2026-01-01T00:00:30Z',
        },
      ],
    };
    expect(rowOf(rec({ status }), now).phase).toBe('Provisioning 30s');
    expect(rowOf(rec({ status }), now + 42_000).phase).toBe('Provisioning 1m12s');
    expect(rowOf(rec({ status, deletionTimestamp: '2026-01-01T00:00:59Z' }), now).phase).toBe('Deleting');
  });

  it('cuts lines to the terminal width', () => {
    const rows = [rowOf(rec({ status: { phase: 'Failed', message: 'x'.repeat(200) } }))];
    for (const line of renderTable(rows, 60)) expect(line.length).toBeLessThanOrEqual(60);
  });

  it('appends the progress of the running step to the message', () => {
    const row = rowOf(
      rec({ status: { phase: 'Provisioning', message: 'creating' }, progress: 'image download 43%' }),
    );
    expect(row.message).toBe('creating — image download 43%');
    expect(row.progress).toBe('image download 43%');
    expect(rowOf(rec({ status: { phase: 'Pending' }, progress: 'x 1%' })).message).toBe('x 1%');
    expect(rowOf(rec({ status: { phase: 'Ready', message: 'ready' } }))).not.toHaveProperty('progress');
  });

  it('shows each provider with its ready targets and first failing reason', () => {
    const at = '2026-01-01T00:00:00Z';
    const rows = [
      providerRowOf({
        name: 'home',
        status: {
          type: 'kvm',
          ready: false,
          summary: '1/2',
          lastCheckTime: at,
          targets: [
            { target: 'nas1', address: 'a', ready: true, reason: 'Ready', lastCheckTime: at },
            {
              target: 'nas2',
              address: 'b',
              ready: false,
              reason: 'Unreachable',
              message: 'refused',
              lastCheckTime: at,
            },
          ],
        },
      }),
      providerRowOf({
        name: 'gcp',
        status: { type: 'gcp', ready: false, message: 'the check failed: boom' },
      }),
    ];
    expect(renderProviderTable(rows)).toEqual([
      'PROVIDER  TYPE  READY  TARGETS  PROBLEM',
      'home      kvm   false  1/2      nas2: Unreachable: refused',
      'gcp       gcp   false           the check failed: boom',
    ]);
    expect(plainProviderLine(rows[0]!)).toBe(
      'provider home kvm ready=false targets=1/2 nas2: Unreachable: refused',
    );
  });

  it('shows an autoscaled pool with its Scaling reason, bounds and load, and a fixed pool without', () => {
    const fixed = poolRowOf({ key: 'default/fixed', desired: 2, replicas: 2, ready: 2, members: [] });
    const scaled = poolRowOf({
      key: 'default/sleepy',
      desired: 1,
      replicas: 1,
      ready: 0,
      members: [],
      gateway: 'http://127.0.0.1:8080',
      autoscale: {
        min: 0,
        max: 4,
        activeConnections: 0,
        requestsPerSecond: 0.26,
        waiting: 1,
        reason: 'WakingOnDemand',
        message: '1 request waiting on a pool at zero: 1 member',
      },
    });
    expect(renderPoolTable([fixed])[0]).not.toContain('SCALING');
    const [head, f, s] = renderPoolTable([fixed, scaled]);
    expect(head).toMatch(/^POOL\s+READY\s+SCALING\s+GATEWAY\s+MEMBERS$/);
    expect(f).toMatch(/^fixed\s+2\/2\s+-\s+-\s+-$/);
    expect(s).toContain('sleepy  0/1    WakingOnDemand 0..4, 0 conn, 0.3 req/s, 1 waiting');
    expect(plainPoolLine(scaled)).toBe(
      'pool sleepy ready=0/1 scaling="WakingOnDemand 0..4, 0 conn, 0.3 req/s, 1 waiting" gateway=http://127.0.0.1:8080 members=-',
    );
    expect(plainPoolLine(fixed)).toBe('pool fixed ready=2/2 gateway=- members=-');
  });

  it('marks the members a gateway cooled down and the ones draining before they go', () => {
    const member = (name: string, cooledDown: boolean) => ({ name, proxy: name, ready: true, cooledDown });
    const row = poolRowOf({
      key: 'default/crawl',
      desired: 1,
      replicas: 3,
      ready: 3,
      members: [member('crawl-a', false), member('crawl-b', true), member('crawl-c', false)],
      draining: ['crawl-c'],
    });
    expect(plainPoolLine(row)).toBe(
      'pool crawl ready=3/1 gateway=- members=crawl-a,crawl-b(cooled),crawl-c(draining)',
    );
  });
});
