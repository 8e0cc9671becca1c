import { InstanceState } from '@egress-proxies/contract';
import { describe, expect, it } from 'vitest';
import type { PodView } from './backend.js';
import { toInstance } from './instance.js';
import { stateOf } from './state.js';

const deleting = new Date('2026-01-01T00:00:00Z');

describe('the state table', () => {
  it.each([
    [{ phase: 'Pending' }, InstanceState.Provisioning],
    [{ phase: 'Pending', podIP: '10.0.0.1' }, InstanceState.Provisioning],
    [{}, InstanceState.Provisioning],
    [{ phase: 'Running' }, InstanceState.Provisioning],
    [{ phase: 'Running', podIP: '' }, InstanceState.Provisioning],
    [{ phase: 'Running', podIP: '10.0.0.1' }, InstanceState.Running],
    [{ phase: 'Succeeded' }, InstanceState.Terminated],
    [{ phase: 'Failed', podIP: '10.0.0.1' }, InstanceState.Terminated],
    [{ phase: 'Unknown' }, InstanceState.Terminated],
    [{ phase: 'Running', podIP: '10.0.0.1', deletionTimestamp: deleting }, InstanceState.Terminated],
    [{ phase: 'Pending', deletionTimestamp: deleting }, InstanceState.Terminated],
    [{ phase: 'SomethingNew' }, InstanceState.Provisioning],
  ] as [Partial<PodView>, InstanceState][])('%j is %s', (pod, want) => {
    expect(stateOf(pod)).toBe(want);
  });
});

describe('toInstance', () => {
  const base: PodView = {
    namespace: 'ns',
    name: 'proxy-1',
    podUid: 'pod-uid',
    labels: {
      'proxy-operator-managed': 'true',
      'proxy-operator-uid': 'u-1',
      'proxy-operator-installation': 'inst-1',
    },
    createdAt: new Date('2025-05-05T05:05:05Z'),
    phase: 'Running',
    podIP: '10.2.3.4',
  };

  it('reads id, uid, installation, createdAt and the address of a Running Pod', () => {
    expect(toInstance(base)).toEqual({
      id: 'ns/proxy-1',
      uid: 'u-1',
      state: InstanceState.Running,
      ip: '10.2.3.4',
      createdAt: new Date('2025-05-05T05:05:05Z'),
      installation: 'inst-1',
    });
  });

  it('reports no address unless Running, even when the Pod still has one', () => {
    const i = toInstance({ ...base, deletionTimestamp: deleting });
    expect(i.state).toBe(InstanceState.Terminated);
    expect(i.ip).toBeUndefined();
  });

  it('reads a missing uid label as the empty string and leaves installation out', () => {
    const i = toInstance({ ...base, labels: { 'proxy-operator-managed': 'true' } });
    expect(i.uid).toBe('');
    expect('installation' in i).toBe(false);
  });
});
