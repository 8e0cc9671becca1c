import { CheckReason, ErrorCode, ErrorKind } from '@egress-proxies/contract';
import { type KubeControlPlane, startKubeControlPlane } from '@egress-proxies/testenv-kube';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKubernetesProvider } from '../src/index.js';
import { CONTROL_PLANE_BUDGET_MS, deleteQuota, must, setPodQuota } from '../src/test/kube.js';
import { createRequest, rejection } from './helpers.js';

describe('RBAC, quota and the Checker against a real API server', () => {
  let cp: KubeControlPlane;
  beforeAll(async () => {
    cp = await startKubeControlPlane();
    for (const ns of ['rbac', 'quota', 'full']) await cp.ensureNamespace(ns);
  }, CONTROL_PLANE_BUDGET_MS);
  afterAll(async () => {
    await cp?.stop();
  });

  it('a user who may only read Pods gets Permanent FORBIDDEN on create, and the Checker names what is missing', async () => {
    const reader = await cp.createLimitedUser('rbac', 'reader', [
      { apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'] },
    ]);
    const provider = createKubernetesProvider(
      { namespacePolicy: 'fixed', namespace: 'rbac' },
      { name: 'k8s-limited', kubeConfig: cp.kubeconfig(reader) },
    );
    const e = await rejection(provider.create(createRequest('rbac')));
    expect(e.kind).toBe(ErrorKind.Permanent);
    expect(e.code).toBe(ErrorCode.Forbidden);
    expect(e.provider).toBe('k8s-limited');
    expect(e.details).toMatchObject({ status: 403, reason: 'Forbidden' });
    expect(e.message).not.toContain(reader.token);

    const [r] = await provider.check();
    expect(r).toMatchObject({
      target: 'apiserver',
      address: cp.server,
      ready: false,
      reason: CheckReason.Forbidden,
    });
    expect(r?.details).toMatchObject({
      namespace: 'rbac',
      'pods.get': 'allowed',
      'pods.list': 'allowed',
      'pods.create': 'denied',
      'pods.delete': 'denied',
    });
    expect(r?.details.serverVersion).toMatch(/^v\d/);
    expect(r?.message).toBe('missing permission to create, delete pods in namespace rbac');
    expect(JSON.stringify(r)).not.toContain(reader.token);
  });

  it('the same limited user is Ready for its namespace once granted every verb, but not cluster-wide', async () => {
    const operator = await cp.createLimitedUser('full', 'operator', [
      { apiGroups: [''], resources: ['pods'], verbs: ['create', 'get', 'list', 'delete'] },
    ]);
    const fixed = createKubernetesProvider(
      { namespacePolicy: 'fixed', namespace: 'full' },
      { kubeConfig: cp.kubeconfig(operator) },
    );
    const [ok] = await fixed.check();
    expect(ok?.ready).toBe(true);
    expect(ok?.reason).toBe(CheckReason.Ready);
    const id = await fixed.create(createRequest('full'));
    expect((await fixed.listByTag()).map((i) => i.id)).toContain(id);
    await fixed.delete(id);

    // Under the proxy policy the Pods may land in any namespace, so the review is cluster-wide.
    const [wide] = await createKubernetesProvider({}, { kubeConfig: cp.kubeconfig(operator) }).check();
    expect(wide?.ready).toBe(false);
    expect(wide?.details.namespace).toBe('(all namespaces)');
    expect(wide?.details['pods.list']).toBe('denied');
  });

  it('the admin is Ready, with the server version in the details', async () => {
    const [r] = await createKubernetesProvider({}, { kubeConfig: cp.kubeconfig() }).check();
    expect(r?.ready).toBe(true);
    expect(Object.keys(r?.details ?? {}).sort()).toEqual(
      [
        'namespace',
        'platform',
        'pods.create',
        'pods.delete',
        'pods.get',
        'pods.list',
        'serverVersion',
      ].sort(),
    );
  });

  it('an unknown token is Permanent AUTH_FAILED, and the Checker says Unauthorized', async () => {
    const provider = createKubernetesProvider(
      {},
      { kubeConfig: cp.kubeconfig({ username: 'nobody', token: 'not-a-real-token-123' }) },
    );
    const e = await rejection(provider.listByTag());
    expect(e.kind).toBe(ErrorKind.Permanent);
    expect(e.code).toBe(ErrorCode.AuthFailed);
    expect(e.message).not.toContain('not-a-real-token-123');
    const [r] = await provider.check();
    expect(r?.reason).toBe(CheckReason.Unauthorized);
    expect(r?.ready).toBe(false);
  });

  it('a ResourceQuota with room for no Pod makes create QuotaExceeded; lifting it lets the retry through', async () => {
    const provider = createKubernetesProvider({}, { kubeConfig: cp.kubeconfig() });
    await setPodQuota(cp, 'quota', 'no-pods', 0);
    const req = createRequest('quota');
    const e = await rejection(provider.create(req));
    expect(e.kind).toBe(ErrorKind.QuotaExceeded);
    expect(e.code).toBe(ErrorCode.QuotaExceeded);
    expect(e.retryable).toBe(true);
    expect(e.message).toContain('exceeded quota');
    await must(cp.request('GET', `/api/v1/namespaces/quota/pods/${req.name}`), [404], 'nothing created');
    await deleteQuota(cp, 'quota', 'no-pods');
    expect(await provider.create(req)).toBe(`quota/${req.name}`);
  });

  it('a quota already used up (used equals hard) is QuotaExceeded too', async () => {
    const provider = createKubernetesProvider({}, { kubeConfig: cp.kubeconfig() });
    await setPodQuota(cp, 'quota', 'one-pod', 1, 1);
    const e = await rejection(provider.create(createRequest('quota')));
    expect(e.kind).toBe(ErrorKind.QuotaExceeded);
    await deleteQuota(cp, 'quota', 'one-pod');
  });
});
