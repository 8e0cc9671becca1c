import { describe, expect, it } from 'vitest';
import type { ProxyRecord } from './state-file.js';
import { plainLine, renderTable, rowOf } from './status-table.js';

const rec = (over: Partial<ProxyRecord>): ProxyRecord => ({
  namespace: 'default',
  name: 'p',
  uid: 'u',
  generation: 1,
  spec: { provider: 'local' },
  finalizers: [],
  ...over,
});

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
    expect(rowOf(rec({ status, deletionTimestamp: '2026-01-01T00:00:59Z' }), now).phase).toBe('Deleting');
  });

  it('cuts lines to the terminal width', () => {
    const rows = [rowOf(rec({ status: { phase: 'Failed', message: 'x'.repeat(200) } }))];
    for (const line of renderTable(rows, 60)) expect(line.length).toBeLessThanOrEqual(60);
  });
});
