import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureControlPlaneBinaries } from './binaries.js';
import { type Daemon, freePort, startDaemon, waitUntil } from './process.js';

export interface KubeResponse {
  status: number;
  body: string;
  json<T = unknown>(): T;
}

export interface KubeUser {
  username: string;
  token: string;
}

export interface PolicyRule {
  apiGroups: string[];
  resources: string[];
  verbs: string[];
}

export interface KubeControlPlane {
  /** https://127.0.0.1:<port> */
  server: string;
  /** PEM of the serving certificate (self-signed by the apiserver), to verify TLS against. */
  caPem: string;
  /** A token for `admin` in `system:masters`. */
  adminToken: string;
  /** A kubeconfig document for `user` (admin when omitted). */
  kubeconfig(user?: KubeUser): string;
  /** One REST call as admin (or `user`); JSON bodies are serialised. */
  request(
    method: string,
    path: string,
    body?: unknown,
    opts?: { user?: KubeUser; contentType?: string },
  ): Promise<KubeResponse>;
  /** Creates `namespace` if missing. */
  ensureNamespace(namespace: string): Promise<void>;
  /**
   * A namespaced user whose rights are only `rules` in `namespace`: a ServiceAccount bound to a
   * Role, with a token from the TokenRequest API. Permission errors are real RBAC denials.
   */
  createLimitedUser(namespace: string, name: string, rules: PolicyRule[]): Promise<KubeUser>;
  /** Sets a Pod's status as a kubelet would (there is none here). */
  setPodStatus(namespace: string, name: string, status: { phase: string; podIP?: string }): Promise<void>;
  logs(): { etcd: string; apiserver: string };
  /**
   * Stops kube-apiserver (SIGTERM, SIGKILL after 5 s), keeps it down for `downMs`, and starts it
   * again on the same port with the same etcd, certificates and tokens; resolves once /readyz
   * answers. Clients see what a control-plane restart looks like: refused connections, broken
   * watches, then the same server.
   */
  restartApiServer(o?: { downMs?: number; signal?: AbortSignal }): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Starts etcd and kube-apiserver on loopback the envtest way: etcd with a temp data dir and
 * --unsafe-no-fsync, the apiserver with token auth (an admin in system:masters), RBAC, a
 * generated service-account key, and waits for /readyz. One per test file or suite.
 */
export async function startKubeControlPlane(opts: { signal?: AbortSignal } = {}): Promise<KubeControlPlane> {
  const bins = await ensureControlPlaneBinaries(opts);
  const dir = mkdtempSync(join(tmpdir(), 'ep-kube-'));
  const daemons: Daemon[] = [];
  const cleanup = async () => {
    for (const d of daemons.reverse()) await d.stop();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const [clientPort, peerPort, apiPort] = [await freePort(), await freePort(), await freePort()];
    const etcdUrl = `http://127.0.0.1:${clientPort}`;
    const etcd = startDaemon(
      'etcd',
      bins.etcd,
      [
        `--data-dir=${join(dir, 'etcd')}`,
        `--listen-client-urls=${etcdUrl}`,
        `--advertise-client-urls=${etcdUrl}`,
        `--listen-peer-urls=http://127.0.0.1:${peerPort}`,
        `--initial-advertise-peer-urls=http://127.0.0.1:${peerPort}`,
        `--initial-cluster=default=http://127.0.0.1:${peerPort}`,
        '--unsafe-no-fsync=true',
        '--log-level=warn',
      ],
      join(dir, 'etcd.log'),
    );
    daemons.push(etcd);
    await waitUntil(
      '/health',
      etcd,
      () => plainGet(`${etcdUrl}/health`).then((b) => b.includes('true')),
      30_000,
      opts.signal,
    );

    const adminToken = randomBytes(24).toString('hex');
    writeFileSync(join(dir, 'tokens.csv'), `${adminToken},admin,admin-uid,"system:masters"\n`, {
      mode: 0o600,
    });
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    writeFileSync(join(dir, 'sa.key'), privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
    const certDir = join(dir, 'certs');
    const server = `https://127.0.0.1:${apiPort}`;
    const apiserverArgs = [
      `--etcd-servers=${etcdUrl}`,
      `--cert-dir=${certDir}`,
      `--secure-port=${apiPort}`,
      '--bind-address=127.0.0.1',
      '--advertise-address=127.0.0.1',
      '--service-cluster-ip-range=10.0.0.0/24',
      '--allow-privileged=true',
      '--disable-admission-plugins=ServiceAccount',
      '--authorization-mode=RBAC',
      `--token-auth-file=${join(dir, 'tokens.csv')}`,
      `--service-account-issuer=${server}/`,
      `--service-account-key-file=${join(dir, 'sa.key')}`,
      `--service-account-signing-key-file=${join(dir, 'sa.key')}`,
      '--v=1',
    ];
    let apiserver = startDaemon(
      'kube-apiserver',
      bins.kubeApiserver,
      apiserverArgs,
      join(dir, 'apiserver.log'),
    );
    daemons.push(apiserver);
    const certFile = join(certDir, 'apiserver.crt');
    let caPem = '';
    const apiserverReady = (signal?: AbortSignal) =>
      waitUntil(
        '/readyz',
        apiserver,
        async () => {
          if (!existsSync(certFile)) return false;
          caPem = readFileSync(certFile, 'utf8');
          const r = await call(server, caPem, adminToken, 'GET', '/readyz');
          return r.status === 200;
        },
        90_000,
        signal,
      );
    await apiserverReady(opts.signal);

    const cp: KubeControlPlane = {
      server,
      caPem,
      adminToken,
      kubeconfig(user) {
        const u = user ?? { username: 'admin', token: adminToken };
        return kubeconfigYaml(server, caPem, u);
      },
      request(method, path, body, o = {}) {
        return call(server, caPem, o.user?.token ?? adminToken, method, path, body, o.contentType);
      },
      async ensureNamespace(namespace) {
        const r = await cp.request('POST', '/api/v1/namespaces', {
          apiVersion: 'v1',
          kind: 'Namespace',
          metadata: { name: namespace },
        });
        if (r.status !== 201 && r.status !== 409)
          throw new Error(`create namespace ${namespace}: ${r.status} ${r.body}`);
      },
      async createLimitedUser(namespace, name, rules) {
        await cp.ensureNamespace(namespace);
        const ns = encodeURIComponent(namespace);
        const must = async (what: string, p: Promise<KubeResponse>, ok: number[] = [200, 201]) => {
          const r = await p;
          if (!ok.includes(r.status)) throw new Error(`${what}: ${r.status} ${r.body}`);
          return r;
        };
        await must(
          'create serviceaccount',
          cp.request('POST', `/api/v1/namespaces/${ns}/serviceaccounts`, { metadata: { name } }),
          [201, 409],
        );
        await must(
          'create role',
          cp.request('POST', `/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/roles`, {
            metadata: { name },
            rules,
          }),
          [201],
        );
        await must(
          'create rolebinding',
          cp.request('POST', `/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/rolebindings`, {
            metadata: { name },
            roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name },
            subjects: [{ kind: 'ServiceAccount', name, namespace }],
          }),
          [201],
        );
        const tr = await must(
          'request token',
          cp.request('POST', `/api/v1/namespaces/${ns}/serviceaccounts/${encodeURIComponent(name)}/token`, {
            apiVersion: 'authentication.k8s.io/v1',
            kind: 'TokenRequest',
            spec: { expirationSeconds: 3600 },
          }),
          [201],
        );
        const token = tr.json<{ status: { token: string } }>().status.token;
        return { username: `system:serviceaccount:${namespace}:${name}`, token };
      },
      async setPodStatus(namespace, name, status) {
        const patch = {
          status: {
            phase: status.phase,
            ...(status.podIP ? { podIP: status.podIP, podIPs: [{ ip: status.podIP }] } : {}),
          },
        };
        const r = await cp.request(
          'PATCH',
          `/api/v1/namespaces/${encodeURIComponent(namespace)}/pods/${encodeURIComponent(name)}/status`,
          patch,
          { contentType: 'application/merge-patch+json' },
        );
        if (r.status !== 200) throw new Error(`set pod status ${namespace}/${name}: ${r.status} ${r.body}`);
      },
      logs() {
        return { etcd: etcd.tail(200), apiserver: apiserver.tail(200) };
      },
      async restartApiServer(o = {}) {
        const old = apiserver;
        await old.stop();
        if (o.downMs) await new Promise((r) => setTimeout(r, o.downMs));
        // The certificates the first start generated stay in the cert dir, so clients keep
        // trusting the same CA.
        apiserver = startDaemon(
          'kube-apiserver',
          bins.kubeApiserver,
          apiserverArgs,
          join(dir, 'apiserver.log'),
        );
        daemons[daemons.indexOf(old)] = apiserver;
        await apiserverReady(o.signal);
      },
      stop: cleanup,
    };
    return cp;
  } catch (err) {
    await cleanup();
    throw err;
  }
}

function plainGet(url: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { timeout: 2000 }, (res) => {
      let b = '';
      res.on('data', (d: Buffer) => {
        b += d.toString();
      });
      res.on('end', () => resolve(b));
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
    req.end();
  });
}

function call(
  server: string,
  caPem: string,
  token: string,
  method: string,
  path: string,
  body?: unknown,
  contentType = 'application/json',
): Promise<KubeResponse> {
  const payload = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = httpsRequest(
      `${server}${path}`,
      {
        method,
        ca: caPem,
        timeout: 10_000,
        headers: {
          authorization: `Bearer ${token}`,
          accept: 'application/json',
          ...(payload !== undefined
            ? { 'content-type': contentType, 'content-length': Buffer.byteLength(payload) }
            : {}),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (d: Buffer) => chunks.push(d));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({ status: res.statusCode ?? 0, body: text, json: <T>() => JSON.parse(text) as T });
        });
      },
    );
    req.on('timeout', () => req.destroy(new Error(`${method} ${path}: timed out`)));
    req.on('error', reject);
    if (payload !== undefined) req.write(payload);
    req.end();
  });
}

function kubeconfigYaml(server: string, caPem: string, user: KubeUser): string {
  const ca = Buffer.from(caPem).toString('base64');
  return [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    '- name: test',
    '  cluster:',
    `    server: ${server}`,
    `    certificate-authority-data: ${ca}`,
    'users:',
    `- name: ${JSON.stringify(user.username)}`,
    '  user:',
    `    token: ${user.token}`,
    'contexts:',
    '- name: test',
    '  context:',
    '    cluster: test',
    `    user: ${JSON.stringify(user.username)}`,
    'current-context: test',
    '',
  ].join('\n');
}
