import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type KubeControlPlane, startKubeControlPlane } from '../src/index.js';

// A cold build of kube-apiserver from Go modules takes many minutes on 2 cores; later runs hit
// the cache keyed by the wrapper modules.
const BUILD_BUDGET_MS = 45 * 60_000;

describe('a real kube-apiserver and etcd', () => {
  let cp: KubeControlPlane;
  beforeAll(async () => {
    cp = await startKubeControlPlane();
  }, BUILD_BUDGET_MS);
  afterAll(async () => {
    await cp?.stop();
  });

  it('is ready and serves the core API to the admin', async () => {
    const r = await cp.request('GET', '/readyz');
    expect(r.status).toBe(200);
    const v = await cp.request('GET', '/version');
    expect(v.json<{ major: string }>().major).toBe('1');
  });

  it('rejects an unknown token', async () => {
    const r = await cp.request('GET', '/api/v1/namespaces', undefined, {
      user: { username: 'nobody', token: 'not-a-token' },
    });
    expect(r.status).toBe(401);
  });

  it('gives a limited user only its role in its namespace', async () => {
    const user = await cp.createLimitedUser('team-a', 'pod-reader', [
      { apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'] },
    ]);
    expect(user.username).toBe('system:serviceaccount:team-a:pod-reader');
    const list = await cp.request('GET', '/api/v1/namespaces/team-a/pods', undefined, { user });
    expect(list.status).toBe(200);
    const create = await cp.request(
      'POST',
      '/api/v1/namespaces/team-a/pods',
      { metadata: { name: 'x' }, spec: { containers: [{ name: 'c', image: 'i' }] } },
      { user },
    );
    expect(create.status).toBe(403);
    expect(create.json<{ reason: string }>().reason).toBe('Forbidden');
    const other = await cp.request('GET', '/api/v1/namespaces/default/pods', undefined, { user });
    expect(other.status).toBe(403);
  });

  it('sets a Pod status as a kubelet would', async () => {
    await cp.ensureNamespace('team-b');
    const created = await cp.request('POST', '/api/v1/namespaces/team-b/pods', {
      metadata: { name: 'squid' },
      spec: { containers: [{ name: 'squid', image: 'squid' }] },
    });
    expect(created.status).toBe(201);
    await cp.setPodStatus('team-b', 'squid', { phase: 'Running', podIP: '10.1.2.3' });
    const pod = (await cp.request('GET', '/api/v1/namespaces/team-b/pods/squid')).json<{
      status: { phase: string; podIP: string };
    }>();
    expect(pod.status).toMatchObject({ phase: 'Running', podIP: '10.1.2.3' });
  });

  it('hands out a kubeconfig that names the server, the CA and the token', () => {
    const doc = cp.kubeconfig();
    expect(doc).toContain(`server: ${cp.server}`);
    expect(doc).toContain(`token: ${cp.adminToken}`);
    expect(doc).toContain(`certificate-authority-data: ${Buffer.from(cp.caPem).toString('base64')}`);
  });

  it('restarts kube-apiserver on the same port, CA and etcd: objects stay, clients reconnect', async () => {
    await cp.ensureNamespace('survives');
    const caBefore = cp.caPem;
    const down = cp.restartApiServer({ downMs: 500 });
    await down;
    expect(cp.caPem).toBe(caBefore);
    const ns = await cp.request('GET', '/api/v1/namespaces/survives');
    expect(ns.status).toBe(200);
    expect((await cp.request('GET', '/readyz')).status).toBe(200);
  });
});
