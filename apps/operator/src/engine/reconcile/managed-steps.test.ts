import { InstanceState, notFoundError } from '@egress-proxies/contract';
import { describe, expect, it } from 'vitest';
import { continued, ended, passState } from '../../../test/support/pass-fixture.js';
import { newProxy, referenceHandle, withOverrides } from '../../../test/support/reconcile-fixture.js';
import type { ProxySpecInput } from '../../api/proxy.js';
import { validateProxySpec } from '../../api/validate.js';
import {
  announceRunning,
  awaitUsable,
  createInstance,
  type ManagedState,
  readInstance,
  replaceOutdated,
} from './managed-steps.js';
import type { ProviderHandle } from './types.js';

function managed(o: { handle?: ProviderHandle; spec?: Partial<ProxySpecInput> } = {}): ManagedState {
  const handle = o.handle ?? referenceHandle().handle;
  const proxy = newProxy(o.spec);
  const s = passState({ proxy, handles: [handle] });
  return { ...s, spec: validateProxySpec(proxy.spec), handle, hash: 'h1' };
}

const running = { id: 'i-1', uid: '', state: InstanceState.Running, ip: '192.0.2.7' };

describe('the Managed steps', () => {
  it('replaceOutdated continues without a call when the instance is of this spec', async () => {
    const s = managed();
    Object.assign(s.status, { providerID: 'i-1', instanceSpecHash: 'h1' });
    expect(continued(await replaceOutdated(s))).toBe(s);
  });

  it('createInstance ends the pass once the new ID is recorded, and continues when there is one', async () => {
    const s = managed();
    expect(ended(await createInstance(s))).toEqual({ requeue: { type: 'after', ms: 0 }, outcome: 'ok' });
    expect(s.status.providerID).toMatch(/^hosts\/alpha\/domains\//);
    expect(s.status.instanceSpecHash).toBe('h1');
    expect(continued(await createInstance(s))).toBe(s);
  });

  it('createInstance ends the pass when the cloud-init Secret cannot be read', async () => {
    const s = managed({ spec: { cloudInit: { secretRef: { name: 'ci', key: 'k' } } } });
    expect(ended(await createInstance(s)).outcome).toBe('transient');
    expect(s.status.providerID).toBeUndefined();
  });

  it('readInstance forgets a gone instance and ends the pass; continues with one it finds', async () => {
    const base = referenceHandle().handle;
    const gone = managed({
      handle: withOverrides(base, {
        get: async (_i, id) => {
          throw notFoundError(`no ${id}`);
        },
      }),
    });
    gone.status.providerID = 'i-1';
    expect(ended(await readInstance(gone))).toEqual({ requeue: { type: 'after', ms: 0 }, outcome: 'ok' });
    expect(gone.status.providerID).toBeUndefined();
    const found = managed({ handle: withOverrides(base, { get: async () => running }) });
    found.status.providerID = 'i-1';
    expect(continued(await readInstance(found)).instance).toEqual(running);
  });

  it('awaitUsable ends the pass while the instance has no address; continues once it has', () => {
    const s = managed();
    const waiting = { ...s, instance: { ...running, state: InstanceState.Provisioning, ip: undefined } };
    expect(ended(awaitUsable(waiting))).toEqual({ requeue: { type: 'after', ms: 1000 }, outcome: 'ok' });
    expect(s.status.phase).toBe('Provisioning');
    expect(continued(awaitUsable({ ...s, instance: running })).instance).toBe(running);
  });

  it('announceRunning ends the pass the first time it runs, then lets the probe follow', () => {
    const s = { ...managed(), instance: running };
    expect(ended(announceRunning(s))).toEqual({ requeue: { type: 'after', ms: 0 }, outcome: 'ok' });
    expect(s.status.phase).toBe('Running');
    expect(continued(announceRunning(s))).toBe(s);
  });

  it('treats a step that needs the instance, run before it was read, as a bug', () => {
    expect(() => awaitUsable(managed())).toThrow(/ran before readInstance/);
  });
});
