import { describe, expect, it } from 'vitest';
import { WorkQueue } from '../engine/queue/work-queue.js';
import { OperatorMetrics, reconcileResult } from './metrics.js';

const sample = (text: string, series: string) => {
  const m = new RegExp(`^${series.replace(/[{}"=,]/g, (c) => `\\${c}`)} (\\S+)$`, 'm').exec(text);
  return m ? Number(m[1]) : undefined;
};

describe('operator metrics', () => {
  it('uses controller-runtime names and labels for the concepts it shares', async () => {
    const metrics = new OperatorMetrics({ queueDepth: () => 3, leaseName: 'my-lease' });
    metrics.reconciled('proxy', 'ok', 0.2);
    metrics.reconciled('proxy', 'transient', 0.1);
    metrics.reconciled('proxy', 'error', 0.1);
    metrics.leader.set(1);
    const text = await metrics.registry.metrics();
    expect(
      sample(text, 'controller_runtime_reconcile_total{controller="proxy",result="success",outcome="ok"}'),
    ).toBe(1);
    expect(
      sample(
        text,
        'controller_runtime_reconcile_total{controller="proxy",result="requeue_after",outcome="transient"}',
      ),
    ).toBe(1);
    expect(sample(text, 'controller_runtime_reconcile_errors_total{controller="proxy"}')).toBe(1);
    expect(
      sample(text, 'controller_runtime_reconcile_time_seconds_count{controller="proxy",outcome="ok"}'),
    ).toBe(1);
    expect(sample(text, 'workqueue_depth{name="proxy"}')).toBe(3);
    expect(sample(text, 'leader_election_master_status{name="my-lease"}')).toBe(1);
    expect(text).not.toMatch(/^egress_proxies_(leader|workqueue_depth|reconcile_total)/m);
  });

  it('counts work queue adds (not the duplicates it drops) and retries', async () => {
    const metrics = new OperatorMetrics({ defaultMetrics: false });
    const queue = new WorkQueue<string>(metrics.queueHooks('proxy'));
    queue.add('a');
    queue.add('a'); // already waiting: dropped, as client-go does
    queue.add('b');
    queue.addRateLimited('c');
    const text = await metrics.registry.metrics();
    expect(sample(text, 'workqueue_adds_total{name="proxy"}')).toBe(2);
    expect(sample(text, 'workqueue_retries_total{name="proxy"}')).toBe(1);
    queue.shutDown();
  });

  it('exports the default process and Node.js metrics', async () => {
    const text = await new OperatorMetrics().registry.metrics();
    for (const name of [
      'process_cpu_seconds_total',
      'process_resident_memory_bytes',
      'nodejs_heap_size_used_bytes',
    ])
      expect(text).toMatch(new RegExp(`^${name} `, 'm'));
    expect(text).toMatch(/^nodejs_eventloop_lag_seconds /m);
  });

  it('maps each reconcile outcome onto a controller-runtime result', () => {
    expect(['ok', 'deleted', 'permanent', 'latched', 'invalid'].map(reconcileResult)).toEqual(
      Array(5).fill('success'),
    );
    expect(['transient', 'quota', 'blocked'].map(reconcileResult)).toEqual(Array(3).fill('requeue_after'));
    expect(reconcileResult('error')).toBe('error');
  });
});
