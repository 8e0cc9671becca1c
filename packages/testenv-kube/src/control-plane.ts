import { execFile } from 'node:child_process';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureControlPlaneBinaries } from './binaries.js';
import { call, type KubeResponse, type KubeUser, kubeconfigYaml, plainGet } from './kube-client.js';
import { type Daemon, freePort, startDaemon, waitUntil } from './process.js';

export type { KubeResponse, KubeUser } from './kube-client.js';

export interface PolicyRule {
  apiGroups: string[];
  resources: string[];
  verbs: string[];
}

export interface KubeControlPlane {
  /** https://<address>:<port> */
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
  stop(): Promise<void>;
}

/** Where and how the two processes run; the defaults are the loopback, API-server-only setup. */
export interface ControlPlaneSpec {
  dir: string;
  /** Turns a command into the one that runs it where the control plane lives (a namespace). */
  wrap?: (bin: string, args: string[]) => [string, string[]];
  /** The address the apiserver listens on and the one it advertises (and clients dial). */
  bindAddress: string;
  advertiseAddress: string;
  ports?: { etcdClient: number; etcdPeer: number; apiserver: number };
  /** Extra static-token users (`token,user,uid,"group"`), beside the admin. */
  users?: { token: string; username: string; groups?: string[] }[];
  /** The apiserver flags that differ between setups (admission, authorization ...). */
  apiserverArgs: string[];
  signal?: AbortSignal;
}

export interface LaunchedControlPlane extends KubeControlPlane {
  /** The service-account signing key (PKCS#8 PEM file) and the serving certificate file. */
  files: { saKey: string; servingCert: string; tokens: string };
  daemons: Daemon[];
}

const ETCD_READY_MS = 30_000;
const APISERVER_READY_MS = 90_000;

/**
 * Starts etcd and kube-apiserver the envtest way: etcd with a data dir under `spec.dir` and
 * --unsafe-no-fsync, the apiserver with token auth (an admin in system:masters), a generated
 * service-account key, and waits for /readyz. `stop` ends both; the caller owns `spec.dir`.
 */
export async function launchControlPlane(spec: ControlPlaneSpec): Promise<LaunchedControlPlane> {
  const bins = await ensureControlPlaneBinaries(spec.signal ? { signal: spec.signal } : {});
  const { dir } = spec;
  const wrap = spec.wrap ?? ((bin: string, args: string[]) => [bin, args] as [string, string[]]);
  const daemons: Daemon[] = [];
  const stopAll = async () => {
    for (const d of [...daemons].reverse()) await d.stop();
  };
  try {
    const ports = spec.ports ?? {
      etcdClient: await freePort(),
      etcdPeer: await freePort(),
      apiserver: await freePort(),
    };
    const etcdUrl = `http://127.0.0.1:${ports.etcdClient}`;
    const etcd = startDaemon(
      'etcd',
      ...wrap(bins.etcd, [
        `--data-dir=${join(dir, 'etcd')}`,
        `--listen-client-urls=${etcdUrl}`,
        `--advertise-client-urls=${etcdUrl}`,
        `--listen-peer-urls=http://127.0.0.1:${ports.etcdPeer}`,
        `--initial-advertise-peer-urls=http://127.0.0.1:${ports.etcdPeer}`,
        `--initial-cluster=default=http://127.0.0.1:${ports.etcdPeer}`,
        '--unsafe-no-fsync=true',
        '--log-level=warn',
      ]),
      join(dir, 'etcd.log'),
    );
    daemons.push(etcd);
    // etcd listens on the loopback of wherever it runs; the wrapped probe looks from there.
    const etcdHealthy = spec.wrap
      ? () => runWrapped(wrap('curl', ['-sf', `${etcdUrl}/health`])).then((b) => b.includes('true'))
      : () => plainGet(`${etcdUrl}/health`).then((b) => b.includes('true'));
    await waitUntil('/health', etcd, etcdHealthy, ETCD_READY_MS, spec.signal);

    const adminToken = randomBytes(24).toString('hex');
    const tokens = join(dir, 'tokens.csv');
    const lines = [`${adminToken},admin,admin-uid,"system:masters"`];
    for (const u of spec.users ?? [])
      lines.push(`${u.token},${u.username},${u.username}-uid${u.groups ? `,"${u.groups.join(',')}"` : ''}`);
    writeFileSync(tokens, `${lines.join('\n')}\n`, { mode: 0o600 });
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const saKey = join(dir, 'sa.key');
    writeFileSync(saKey, privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
    const certDir = join(dir, 'certs');
    const server = `https://${spec.advertiseAddress}:${ports.apiserver}`;
    const apiserver = startDaemon(
      'kube-apiserver',
      ...wrap(bins.kubeApiserver, [
        `--etcd-servers=${etcdUrl}`,
        `--cert-dir=${certDir}`,
        `--secure-port=${ports.apiserver}`,
        `--bind-address=${spec.bindAddress}`,
        `--advertise-address=${spec.advertiseAddress}`,
        '--service-cluster-ip-range=10.0.0.0/24',
        '--allow-privileged=true',
        `--token-auth-file=${tokens}`,
        `--service-account-issuer=${server}/`,
        `--service-account-key-file=${saKey}`,
        `--service-account-signing-key-file=${saKey}`,
        ...spec.apiserverArgs,
        '--v=1',
      ]),
      join(dir, 'apiserver.log'),
    );
    daemons.push(apiserver);
    const certFile = join(certDir, 'apiserver.crt');
    let caPem = '';
    await waitUntil(
      '/readyz',
      apiserver,
      async () => {
        if (!existsSync(certFile)) return false;
        caPem = readFileSync(certFile, 'utf8');
        const r = await call(server, caPem, adminToken, 'GET', '/readyz');
        return r.status === 200;
      },
      APISERVER_READY_MS,
      spec.signal,
    );
    return {
      ...controlPlaneHandle(server, caPem, adminToken, { etcd, apiserver }, stopAll),
      files: { saKey, servingCert: certFile, tokens },
      daemons,
    };
  } catch (err) {
    await stopAll();
    throw err;
  }
}

/**
 * Starts etcd and kube-apiserver on loopback the envtest way: etcd with a temp data dir and
 * --unsafe-no-fsync, the apiserver with token auth (an admin in system:masters), RBAC, a
 * generated service-account key, and waits for /readyz. One per test file or suite.
 */
export async function startKubeControlPlane(opts: { signal?: AbortSignal } = {}): Promise<KubeControlPlane> {
  const dir = mkdtempSync(join(tmpdir(), 'ep-kube-'));
  try {
    const cp = await launchControlPlane({
      dir,
      bindAddress: '127.0.0.1',
      advertiseAddress: '127.0.0.1',
      apiserverArgs: ['--disable-admission-plugins=ServiceAccount', '--authorization-mode=RBAC'],
      ...(opts.signal ? { signal: opts.signal } : {}),
    });
    const stop = cp.stop;
    return {
      ...cp,
      stop: async () => {
        await stop();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
}

function runWrapped([cmd, args]: [string, string[]]): Promise<string> {
  return new Promise<string>((resolve, reject) =>
    execFile(cmd, args, { timeout: 5000 }, (err, out) => (err ? reject(err) : resolve(out))),
  );
}

function controlPlaneHandle(
  server: string,
  caPem: string,
  adminToken: string,
  daemons: { etcd: Daemon; apiserver: Daemon },
  stop: () => Promise<void>,
): KubeControlPlane {
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
      return { etcd: daemons.etcd.tail(200), apiserver: daemons.apiserver.tail(200) };
    },
    stop,
  };
  return cp;
}
