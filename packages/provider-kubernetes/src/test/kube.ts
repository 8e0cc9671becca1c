/** An answer from `ControlPlane.request`. */
export interface KubeResponse {
  status: number;
  body: string;
  json<T = unknown>(): T;
}

/** A user of the control plane: a name and a bearer token. */
export interface KubeUser {
  username: string;
  token: string;
}

/**
 * What these helpers need from a running control plane (the workspace's test environment
 * provides it; any real cluster with an admin token can too).
 */
export interface ControlPlane {
  /** https://host:port of the API server. */
  server: string;
  /** PEM of the CA that signed the serving certificate. */
  caPem: string;
  adminToken: string;
  request(
    method: string,
    path: string,
    body?: unknown,
    opts?: { user?: KubeUser; contentType?: string },
  ): Promise<KubeResponse>;
  ensureNamespace(namespace: string): Promise<void>;
  createLimitedUser(
    namespace: string,
    name: string,
    rules: { apiGroups: string[]; resources: string[]; verbs: string[] }[],
  ): Promise<KubeUser>;
}

/** A cold machine builds kube-apiserver and etcd from Go modules first; later starts take seconds. */
export const CONTROL_PLANE_BUDGET_MS = 45 * 60_000;

/** A kubeconfig for `server` (the relay, plain HTTP) with `token`. */
export function relayKubeconfig(server: string, token: string): string {
  return [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    '- name: relay',
    '  cluster:',
    `    server: ${server}`,
    // client-node refuses plain HTTP unless TLS verification is explicitly off.
    '    insecure-skip-tls-verify: true',
    'users:',
    '- name: u',
    '  user:',
    `    token: ${token}`,
    'contexts:',
    '- name: relay',
    '  context:',
    '    cluster: relay',
    '    user: u',
    'current-context: relay',
    '',
  ].join('\n');
}

/** Asserts an admin call succeeded, with its body in the failure. */
export async function must(p: Promise<KubeResponse>, ok: number[], what: string): Promise<KubeResponse> {
  const r = await p;
  if (!ok.includes(r.status)) throw new Error(`${what}: HTTP ${r.status} ${r.body}`);
  return r;
}

/**
 * A ResourceQuota allowing `pods` Pods in `namespace`, with its status filled in as the quota
 * controller would (none runs here): admission only enforces a quota whose status is computed.
 */
export async function setPodQuota(cp: ControlPlane, namespace: string, name: string, pods: number, used = 0) {
  const base = `/api/v1/namespaces/${namespace}/resourcequotas`;
  await must(
    cp.request('POST', base, { metadata: { name }, spec: { hard: { pods: String(pods) } } }),
    [201, 409],
    'create quota',
  );
  await must(
    cp.request(
      'PATCH',
      `${base}/${name}/status`,
      { status: { hard: { pods: String(pods) }, used: { pods: String(used) } } },
      { contentType: 'application/merge-patch+json' },
    ),
    [200],
    'set quota status',
  );
}

/**
 * Deletes a ResourceQuota and returns once admission has stopped enforcing it. The quota
 * admission plugin reads quotas from an informer cache, so a Pod created right after the delete
 * can still be refused by the deleted quota; a server-side dry-run create goes through the same
 * admission without persisting anything, and is retried until that quota no longer refuses it.
 */
export async function deleteQuota(cp: ControlPlane, namespace: string, name: string, budgetMs = 10_000) {
  const r = await must(
    cp.request('DELETE', `/api/v1/namespaces/${namespace}/resourcequotas/${name}`),
    [200, 404],
    'delete quota',
  );
  if (r.status === 404) return;
  const probe = {
    metadata: { generateName: 'quota-probe-' },
    spec: { containers: [{ name: 'probe', image: 'probe' }] },
  };
  const deadline = Date.now() + budgetMs;
  for (;;) {
    const dry = await cp.request('POST', `/api/v1/namespaces/${namespace}/pods?dryRun=All`, probe);
    if (!(dry.status === 403 && dry.body.includes(`exceeded quota: ${name}`))) return;
    if (Date.now() > deadline) {
      throw new Error(`quota ${namespace}/${name} still refuses Pods ${budgetMs} ms after its delete`);
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Removes every finalizer of a Pod (so a delete completes) and deletes it. */
export async function forceDeletePod(cp: ControlPlane, namespace: string, name: string) {
  const path = `/api/v1/namespaces/${namespace}/pods/${name}`;
  await must(
    cp.request(
      'PATCH',
      path,
      { metadata: { finalizers: null } },
      { contentType: 'application/merge-patch+json' },
    ),
    [200, 404],
    'clear finalizers',
  );
  await must(cp.request('DELETE', path, { gracePeriodSeconds: 0 }), [200, 404], 'delete pod');
}
