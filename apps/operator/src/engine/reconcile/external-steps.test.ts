import { describe, expect, it } from 'vitest';
import { continued, ended, passState } from '../../../test/support/pass-fixture.js';
import { newProxy } from '../../../test/support/reconcile-fixture.js';
import { validateProxySpec } from '../../api/validate.js';
import {
  dropManagedInstance,
  type ExternalState,
  probeExternal,
  recordExternalAddress,
} from './external-steps.js';

function external(hasFinalizer: boolean): ExternalState {
  const proxy = newProxy({
    mode: 'External',
    address: '[2001:db8::7]:8080',
    provider: undefined,
    placement: undefined,
  });
  return {
    ...passState({ proxy, ctx: { blockedRetryMs: 60_000 } }),
    spec: validateProxySpec(proxy.spec),
    hasFinalizer,
  };
}

describe('the External steps', () => {
  it('dropManagedInstance ends the pass as blocked while the instance of its Managed days cannot be removed', async () => {
    const s = external(true);
    Object.assign(s.status, { providerID: 'i-1', instanceProvider: 'gone' });
    expect(ended(await dropManagedInstance(s))).toEqual({
      requeue: { type: 'after', ms: 60_000 },
      outcome: 'blocked',
    });
    const clean = external(true);
    expect(continued(await dropManagedInstance(clean))).toBe(clean);
  });

  it('recordExternalAddress reports the address as the endpoint, without brackets', () => {
    const s = continued(recordExternalAddress(external(false)));
    expect(s.endpoint).toEqual({ host: '2001:db8::7', port: 8080 });
    expect(s.status).toMatchObject({ ip: '2001:db8::7', phase: 'Running' });
  });

  it('probeExternal ends the pass, removing a finalizer left from Managed days', async () => {
    const withFinalizer = continued(recordExternalAddress(external(true)));
    expect(ended(await probeExternal(withFinalizer)).finalizer).toBe('remove');
    const without = continued(recordExternalAddress(external(false)));
    expect(ended(await probeExternal(without))).toEqual({
      requeue: { type: 'after', ms: 300_000 },
      outcome: 'ok',
    });
  });
});
