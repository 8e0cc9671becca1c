import { randomUUID } from 'node:crypto';
import {
  type CreateRequest,
  ErrorCode,
  ErrorKind,
  InstanceState,
  instanceName,
} from '@egress-proxies/contract';
import { type KubeControlPlane, startKubeControlPlane } from '@egress-proxies/testenv-kube';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKubernetesProvider, type KubernetesProvider } from '../src/index.js';
import { apiErrorFromBody, classify } from '../src/internal/index.js';
import { CONTROL_PLANE_BUDGET_MS, forceDeletePod, must } from '../src/test/kube.js';
import { createRequest, rejection } from './helpers.js';

const NS = 'lifecycle';

describe('create, get, delete and list against a real API server', () => {
  let cp: KubeControlPlane;
  let provider: KubernetesProvider;
  beforeAll(async () => {
    cp = await startKubeControlPlane();
    await cp.ensureNamespace(NS);
    await cp.ensureNamespace('proxies');
    provider = createKubernetesProvider({}, { name: 'k8s-main', kubeConfig: cp.kubeconfig() });
  }, CONTROL_PLANE_BUDGET_MS);
  afterAll(async () => {
    await cp?.stop();
  });

  const request = (over: Partial<CreateRequest> = {}): CreateRequest => {
    const proxy = `p-${randomUUID().slice(0, 8)}`;
    return createRequest(NS, {
      name: instanceName(NS, proxy),
      proxyName: proxy,
      installation: 'inst-a',
      ...over,
    });
  };
  const readPod = async (ns: string, name: string) =>
    (await must(cp.request('GET', `/api/v1/namespaces/${ns}/pods/${name}`), [200], 'read pod')).json<{
      metadata: { labels: Record<string, string>; ownerReferences?: unknown[]; uid: string };
      spec: { containers: { securityContext: { readOnlyRootFilesystem: boolean } }[] };
    }>();

  it('creates a hardened, labelled Pod that the API server accepts, and reports it Provisioning', async () => {
    const req = request();
    const id = await provider.create(req);
    expect(id).toBe(`${NS}/${req.name}`);
    const pod = await readPod(NS, req.name);
    expect(pod.metadata.labels).toMatchObject({
      'proxy-operator-managed': 'true',
      'proxy-operator-uid': req.uid,
      'proxy-operator-installation': 'inst-a',
    });
    expect(pod.spec.containers[0]?.securityContext.readOnlyRootFilesystem).toBe(true);
    const inst = await provider.get(id);
    expect(inst).toMatchObject({
      id,
      uid: req.uid,
      state: InstanceState.Provisioning,
      installation: 'inst-a',
    });
    expect(inst.ip).toBeUndefined();
    expect(Math.abs((inst.createdAt?.getTime() ?? 0) - Date.now())).toBeLessThan(60_000);
  });

  it('reports Running with the Pod IP once the Pod runs, and Terminated once it failed', async () => {
    const req = request();
    const id = await provider.create(req);
    await cp.setPodStatus(NS, req.name, { phase: 'Running', podIP: '10.9.8.7' });
    expect(await provider.get(id)).toMatchObject({ state: InstanceState.Running, ip: '10.9.8.7' });
    await cp.setPodStatus(NS, req.name, { phase: 'Failed' });
    const after = await provider.get(id);
    expect(after.state).toBe(InstanceState.Terminated);
    expect(after.ip).toBeUndefined();
  });

  it('is idempotent: a second create adopts its own Pod', async () => {
    const req = request();
    const a = await provider.create(req);
    const b = await provider.create(req);
    expect(b).toBe(a);
    const list = await provider.listByTag();
    expect(list.filter((i) => i.id === a)).toHaveLength(1);
  });

  it('refuses, untouched, a Pod with the name that carries another UID or no mark', async () => {
    const req = request();
    await provider.create({ ...req, uid: randomUUID() });
    const foreign = await rejection(provider.create(req));
    expect(foreign.kind).toBe(ErrorKind.Permanent);
    expect(foreign.code).toBe(ErrorCode.ForeignInstance);
    expect(foreign.provider).toBe('k8s-main');

    const other = request();
    await must(
      cp.request('POST', `/api/v1/namespaces/${NS}/pods`, {
        metadata: { name: other.name, labels: { app: 'hand-made' } },
        spec: { containers: [{ name: 'c', image: 'busybox' }] },
      }),
      [201],
      'hand-made pod',
    );
    const unmarked = await rejection(provider.create(other));
    expect(unmarked.kind).toBe(ErrorKind.Permanent);
    expect(unmarked.code).toBe(ErrorCode.UnmarkedInstance);
    expect((await readPod(NS, other.name)).metadata.labels).toEqual({ app: 'hand-made' });
    expect((await rejection(provider.get(`${NS}/${other.name}`))).kind).toBe(ErrorKind.NotFound);
    // Delete leaves a Pod it did not mark alone.
    await provider.delete(`${NS}/${other.name}`);
    await readPod(NS, other.name);
  });

  it('adopts a marked Pod with an empty UID', async () => {
    const req = request();
    await provider.create({ ...req, uid: '' });
    expect(await provider.create(req)).toBe(`${NS}/${req.name}`);
  });

  it('delete removes the Pod, twice is fine, and get is then NotFound', async () => {
    const req = request();
    const id = await provider.create(req);
    await provider.delete(id);
    await provider.delete(id);
    const e = await rejection(provider.get(id));
    expect(e.kind).toBe(ErrorKind.NotFound);
    expect(e.operation).toBe('get');
    await must(cp.request('GET', `/api/v1/namespaces/${NS}/pods/${req.name}`), [404], 'pod gone');
  });

  it('a Pod being deleted is Terminated; create over it is Transient; delete returns at once', async () => {
    const req = request();
    const id = await provider.create(req);
    const path = `/api/v1/namespaces/${NS}/pods/${req.name}`;
    await must(
      cp.request(
        'PATCH',
        path,
        { metadata: { finalizers: ['test.egress-proxies.dev/hold'] } },
        {
          contentType: 'application/merge-patch+json',
        },
      ),
      [200],
      'add finalizer',
    );
    await cp.setPodStatus(NS, req.name, { phase: 'Running', podIP: '10.1.1.1' });
    await must(cp.request('DELETE', path), [200], 'delete with finalizer');
    const inst = await provider.get(id);
    expect(inst.state).toBe(InstanceState.Terminated);
    expect(inst.ip).toBeUndefined();
    const again = await rejection(provider.create(req));
    expect(again.kind).toBe(ErrorKind.Transient);
    expect(again.code).toBe('POD_TERMINATING');
    await provider.delete(id);
    await forceDeletePod(cp, NS, req.name);
    expect(await provider.create(req)).toBe(id);
  });

  it('sets the owner reference the operator passes', async () => {
    const req = request({
      owner: { apiVersion: 'egress.dev/v1alpha1', kind: 'Proxy', name: 'p', uid: randomUUID() },
    });
    await provider.create(req);
    expect((await readPod(NS, req.name)).metadata.ownerReferences).toEqual([
      { apiVersion: 'egress.dev/v1alpha1', kind: 'Proxy', name: 'p', uid: req.owner?.uid, controller: true },
    ]);
  });

  it('the Pod passes the restricted Pod Security Standard, which a plain Pod fails', async () => {
    await must(
      cp.request('POST', '/api/v1/namespaces', {
        metadata: { name: 'restricted', labels: { 'pod-security.kubernetes.io/enforce': 'restricted' } },
      }),
      [201, 409],
      'restricted namespace',
    );
    const plain = await cp.request('POST', '/api/v1/namespaces/restricted/pods', {
      metadata: { name: 'plain' },
      spec: { containers: [{ name: 'c', image: 'busybox' }] },
    });
    expect(plain.status).toBe(403);
    expect(plain.body).toContain('violates PodSecurity');
    const req = request({ namespace: 'restricted' });
    expect(await provider.create(req)).toBe(`restricted/${req.name}`);
    // The real PodSecurity refusal is a 403 Forbidden too, and must classify as Permanent, not quota.
    const e = classify(apiErrorFromBody(plain.status, plain.body));
    expect(e.kind).toBe(ErrorKind.Permanent);
    expect(e.code).toBe(ErrorCode.Forbidden);
  });

  it('the API server accepts every optional field: zone affinity, nodeSelector, tolerations, service account, pull secrets', async () => {
    const full = createKubernetesProvider(
      {
        nodeSelector: { 'egress.dev/pool': 'proxies' },
        tolerations: [{ key: 'egress', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 30 }],
        serviceAccountName: 'squid',
        imagePullSecrets: ['regcred'],
        resources: { requests: { cpu: '10m' }, limits: { memory: '32Mi' } },
      },
      { kubeConfig: cp.kubeconfig() },
    );
    const req = request({ placement: { zone: 'zone-b' } });
    await full.create(req);
    const pod = (
      await must(cp.request('GET', `/api/v1/namespaces/${NS}/pods/${req.name}`), [200], 'read')
    ).json<{
      spec: Record<string, unknown>;
    }>();
    expect(pod.spec).toMatchObject({
      nodeSelector: { 'egress.dev/pool': 'proxies' },
      serviceAccountName: 'squid',
      imagePullSecrets: [{ name: 'regcred' }],
      automountServiceAccountToken: false,
      affinity: {
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: {
            nodeSelectorTerms: [
              {
                matchExpressions: [
                  { key: 'topology.kubernetes.io/zone', operator: 'In', values: ['zone-b'] },
                ],
              },
            ],
          },
        },
      },
    });
    expect(pod.spec.tolerations).toContainEqual({
      key: 'egress',
      operator: 'Exists',
      effect: 'NoExecute',
      tolerationSeconds: 30,
    });
  });

  it('a create into a namespace that does not exist is Transient, not NotFound', async () => {
    const e = await rejection(provider.create(request({ namespace: 'no-such-namespace' })));
    expect(e.kind).toBe(ErrorKind.Transient);
  });

  it('listByTag returns only marked Pods, across namespaces, with uid and createdAt', async () => {
    const req = request();
    const id = await provider.create(req);
    await must(
      cp.request('POST', '/api/v1/namespaces/proxies/pods', {
        metadata: { name: 'unmarked-one', labels: { 'proxy-operator-uid': 'x' } },
        spec: { containers: [{ name: 'c', image: 'busybox' }] },
      }),
      [201],
      'unmarked pod',
    );
    const list = await createKubernetesProvider(
      {},
      { kubeConfig: cp.kubeconfig(), listPageSize: 2 },
    ).listByTag();
    const mine = list.find((i) => i.id === id);
    expect(mine?.uid).toBe(req.uid);
    expect(mine?.createdAt).toBeInstanceOf(Date);
    expect(list.some((i) => i.id === 'proxies/unmarked-one')).toBe(false);
    // Pagination: every Pod the label selector matches, once.
    const all = (
      await must(cp.request('GET', '/api/v1/pods?labelSelector=proxy-operator-managed%3Dtrue'), [200], 'list')
    ).json<{ items: { metadata: { namespace: string; name: string } }[] }>();
    expect(list.map((i) => i.id).sort()).toEqual(
      all.items.map((p) => `${p.metadata.namespace}/${p.metadata.name}`).sort(),
    );
    expect(all.items.length).toBeGreaterThan(2);
  });

  it('under the fixed policy puts the Pod in the configured namespace and lists only there', async () => {
    const fixed = createKubernetesProvider(
      { namespacePolicy: 'fixed', namespace: 'proxies' },
      { kubeConfig: cp.kubeconfig() },
    );
    const req = request({ owner: { apiVersion: 'v1', kind: 'Proxy', name: 'p', uid: randomUUID() } });
    const id = await fixed.create(req);
    expect(id).toBe(`proxies/${req.name}`);
    expect((await readPod('proxies', req.name)).metadata.ownerReferences).toBeUndefined();
    const ids = (await fixed.listByTag()).map((i) => i.id);
    expect(ids).toContain(id);
    expect(ids.every((i) => i.startsWith('proxies/'))).toBe(true);
  });

  it('rejects malformed IDs before any call', async () => {
    for (const bad of ['', 'x', `${NS}/`, 'a/b/c']) {
      const e = await rejection(provider.get(bad));
      expect(e.kind).toBe(ErrorKind.Permanent);
      expect(e.code).toBe(ErrorCode.InvalidId);
      const d = await rejection(provider.delete(bad));
      expect(d.kind).toBe(ErrorKind.Permanent);
    }
  });
});
