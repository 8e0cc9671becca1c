import { describe, expect, it } from 'vitest';
import { continued, ended, passState } from '../../../test/support/pass-fixture.js';
import { newProxy } from '../../../test/support/reconcile-fixture.js';
import { validateProxySpec } from '../../api/validate.js';
import { getCondition } from './conditions.js';
import { createRequest } from './create-request.js';

const proxy = newProxy({ cloudInit: { secretRef: { name: 'ci', key: 'user-data' } } });
const spec = validateProxySpec(proxy.spec);

describe('createRequest', () => {
  it('ends the pass with a transient backoff when the cloud-init Secret cannot be read', async () => {
    const s = passState({ proxy });
    const end = ended(await createRequest(s, spec));
    expect(end).toEqual({ requeue: { type: 'backoff', tier: 'transient' }, outcome: 'transient' });
    expect(s.status.message).toBe('cloud-init Secret ci key user-data: secret ci has no key user-data');
    expect(getCondition(s.status.conditions, 'Provisioned')?.reason).toBe('CloudInitUnavailable');
  });

  it('leaves the cloud-init out instead when it is optional (a create run only to learn what to delete)', async () => {
    const s = passState({ proxy });
    const req = continued(await createRequest(s, spec, { cloudInitOptional: true }));
    expect(req).not.toHaveProperty('cloudInit');
    expect(req).toMatchObject({
      name: expect.any(String),
      uid: 'uid-p1',
      installation: 'install-A',
      port: 3128,
    });
    expect(s.status.message).toBeUndefined();
  });

  it('carries the Secret content when it can be read', async () => {
    const s = passState({ proxy, ctx: { readCloudInitSecret: async () => '#cloud-config\n' } });
    expect(continued(await createRequest(s, spec)).cloudInit).toBe('#cloud-config\n');
  });
});
