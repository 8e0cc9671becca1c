import type { CallOptions } from '@egress-proxies/contract';
import { loggerOf } from '@egress-proxies/provider-utils';
import { describe, expect, it } from 'vitest';
import { referenceHandle } from '../../test/support/reconcile-fixture.js';
import { withProgress } from './progress.js';

describe('progress of a provider call', () => {
  it('reports progress through the call and clears it when the call ends, also on failure', async () => {
    const { handle } = referenceHandle();
    const states: (string | undefined)[] = [];
    const base = <T>(_h: unknown, _op: string, fn: (o: CallOptions) => Promise<T>) => fn({});
    const call = withProgress(base, (t) => states.push(t));
    await call(handle, 'create', async (o) => {
      loggerOf(o).log(1, 'image download progress', { percent: 10 });
      loggerOf(o).log(1, 'image download progress', { percent: 60 });
      return 'id';
    });
    expect(states).toEqual(['image download 10%', 'image download 60%', undefined]);
    states.length = 0;
    await expect(
      call(handle, 'create', async (o) => {
        loggerOf(o).log(1, 'step', { percent: 1 });
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(states).toEqual(['step 1%', undefined]);
  });
});
