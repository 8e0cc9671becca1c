import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureGoTool, runBuildScript } from './binaries.js';
import { createCgroupRoot, killCgroup, removeCgroupRoot } from './cgroups.js';
import { type Containerd, startContainerd } from './containerd.js';
import { type KubeControlPlane, launchControlPlane } from './control-plane.js';
import type { KubeResponse } from './kube-client.js';
import {
  CLUSTER_CIDR,
  componentKubeconfig,
  kubeletConfig,
  kubeProxyConfig,
  PAUSE_IMAGE,
  SERVICE_CIDR,
} from './node-config.js';
import { type NodeHolder, startNodeHolder } from './node-holder.js';
import { createNodeNetwork, type NodeNetwork } from './node-network.js';
import { type Daemon, startDaemon, waitUntil } from './process.js';
import { removeStaleNodes } from './stale.js';

/** An OCI archive and the fully qualified names its image is imported under. */
export interface ClusterImage {
  archive: string;
  names: string[];
}

export interface StartKubeClusterOptions {
  /** Imported into containerd before the kubelet starts (the pause image is always added). */
  images?: ClusterImage[];
  /** Pod start-up waits: how long a step may go without progress. Default 5 minutes. */
  signal?: AbortSignal;
}

export interface KubeCluster extends KubeControlPlane {
  nodeName: string;
  /** The node's address: the apiserver listens here; so does the kubelet. */
  nodeIP: string;
  /** This host's end of the node's link: a test server here is reachable from every Pod. */
  hostIP: string;
  netns: string;
  podCIDR: string;
  serviceCIDR: string;
  /** `ctr` against the node's containerd (namespace k8s.io). */
  ctr(args: string[]): Promise<string>;
  importImage(image: ClusterImage): Promise<void>;
  /** `[cmd, args]` that run `command` in the node's namespaces (network and mounts). */
  inNode(command: string, args: string[]): [string, string[]];
  /** The last lines of each daemon's log. */
  daemonLogs(lines?: number): Record<string, string>;
}

export const NODE_NAME = 'ep-node';
const NODE_READY_MS = 10 * 60_000;

function token(): string {
  return randomBytes(24).toString('hex');
}

/**
 * A one-node Kubernetes cluster on this machine: etcd, kube-apiserver, kube-controller-manager,
 * kube-scheduler, kube-proxy, containerd with runc and the Debian CNI plugins, and a kubelet,
 * all inside a network namespace of their own joined to the host by one /30 link, in a private
 * mount namespace, with their Pods under a cgroup root of their own. Images come from archives
 * (no registry). Fails with the reason when any part cannot start; `stop` ends every process
 * and removes the namespace, the cgroups and the files it made. A run that was killed is
 * cleaned up by the next start.
 */
export async function startKubeCluster(o: StartKubeClusterOptions = {}): Promise<KubeCluster> {
  await removeStaleNodes();
  const [kubeNode, pauseArchive] = await Promise.all([
    ensureGoTool('kube-node', o.signal ? { signal: o.signal } : {}),
    ensurePauseImage(o.signal),
  ]);
  const net = await createNodeNetwork(o.signal ? { signal: o.signal } : {});
  const dir = mkdtempSync(join(tmpdir(), `${net.netns}-`));
  const cgroupRoot = net.netns;
  const daemons: Daemon[] = [];
  let holder: NodeHolder | undefined;
  let containerd: Containerd | undefined;
  let cp: Awaited<ReturnType<typeof launchControlPlane>> | undefined;
  const stop = async () => {
    await teardown({ daemons, cp, containerd, holder, net, cgroupRoot, dir });
  };
  try {
    createCgroupRoot(cgroupRoot);
    holder = await startNodeHolder(net.netns, join(dir, 'holder.log'));
    const wrap = holder.wrap;
    const users = {
      node: { token: token(), username: `system:node:${NODE_NAME}`, groups: ['system:nodes'] },
      scheduler: { token: token(), username: 'system:kube-scheduler' },
      controllerManager: { token: token(), username: 'system:kube-controller-manager' },
      proxy: { token: token(), username: 'system:kube-proxy' },
    };
    cp = await launchControlPlane({
      dir,
      wrap,
      bindAddress: net.nodeIP,
      advertiseAddress: net.nodeIP,
      ports: { etcdClient: 2379, etcdPeer: 2380, apiserver: 6443 },
      users: Object.values(users),
      apiserverArgs: [
        '--authorization-mode=Node,RBAC',
        '--enable-admission-plugins=NodeRestriction',
        '--kubelet-preferred-address-types=InternalIP',
      ],
      ...(o.signal ? { signal: o.signal } : {}),
    });
    const started = cp;
    const kubeconfigFor = (name: string, u: { token: string; username: string }) => {
      const path = join(dir, `${name}.kubeconfig`);
      writeFileSync(
        path,
        componentKubeconfig(started.server, started.files.servingCert, u.token, u.username),
        {
          mode: 0o600,
        },
      );
      return path;
    };

    containerd = await startContainerd({
      dir: join(dir, 'containerd'),
      wrap,
      ...(o.signal ? { signal: o.signal } : {}),
    });
    for (const image of [{ archive: pauseArchive, names: [PAUSE_IMAGE] }, ...(o.images ?? [])])
      await containerd.importImage(image);

    const component = (name: string, args: string[]) => {
      const d = startDaemon(name, ...wrap(kubeNode, [name, ...args]), join(dir, `${name}.log`));
      daemons.push(d);
      return d;
    };
    const cmKubeconfig = kubeconfigFor('controller-manager', users.controllerManager);
    component('kube-controller-manager', [
      `--kubeconfig=${cmKubeconfig}`,
      `--authentication-kubeconfig=${cmKubeconfig}`,
      `--authorization-kubeconfig=${cmKubeconfig}`,
      '--bind-address=127.0.0.1',
      '--leader-elect=false',
      '--use-service-account-credentials=true',
      `--service-account-private-key-file=${cp.files.saKey}`,
      `--root-ca-file=${cp.files.servingCert}`,
      `--cluster-cidr=${CLUSTER_CIDR}`,
      `--service-cluster-ip-range=${SERVICE_CIDR}`,
      '--v=1',
    ]);
    const schedKubeconfig = kubeconfigFor('scheduler', users.scheduler);
    component('kube-scheduler', [
      `--kubeconfig=${schedKubeconfig}`,
      `--authentication-kubeconfig=${schedKubeconfig}`,
      `--authorization-kubeconfig=${schedKubeconfig}`,
      '--bind-address=127.0.0.1',
      '--leader-elect=false',
      '--v=1',
    ]);
    const proxyConfig = join(dir, 'kube-proxy.json');
    writeFileSync(
      proxyConfig,
      kubeProxyConfig({ kubeconfig: kubeconfigFor('kube-proxy', users.proxy), nodeName: NODE_NAME }),
    );
    component('kube-proxy', [`--config=${proxyConfig}`, '--v=1']);
    const kubeletConf = join(dir, 'kubelet.json');
    writeFileSync(
      kubeletConf,
      kubeletConfig({
        cgroupRoot: `/${cgroupRoot}`,
        containerdSocket: containerd.socket,
        nodeIP: net.nodeIP,
      }),
    );
    const kubelet = component('kubelet', [
      `--config=${kubeletConf}`,
      `--kubeconfig=${kubeconfigFor('kubelet', users.node)}`,
      `--hostname-override=${NODE_NAME}`,
      `--node-ip=${net.nodeIP}`,
      '--root-dir=/var/lib/kubelet',
      '--v=1',
    ]);
    // Any daemon that dies fails the start at once, with its last lines.
    await waitUntil(
      `node ${NODE_NAME} Ready`,
      kubelet,
      async () => {
        const dead = daemons.find((d) => d.exited());
        if (dead) return true;
        return nodeReady(await started.request('GET', `/api/v1/nodes/${NODE_NAME}`));
      },
      NODE_READY_MS,
      o.signal,
    );
    const dead = [...daemons, containerd.daemon].find((d) => d.exited());
    if (dead) throw new Error(`${dead.name} exited while the node started; last output:\n${dead.tail(40)}`);
    const runtime = containerd;
    const cluster: KubeCluster = {
      ...cp,
      nodeName: NODE_NAME,
      nodeIP: net.nodeIP,
      hostIP: net.hostIP,
      netns: net.netns,
      podCIDR: '10.244.0.0/24',
      serviceCIDR: SERVICE_CIDR,
      ctr: (args) => runtime.ctr(args),
      importImage: (image) => runtime.importImage(image),
      inNode: (command, args) => wrap(command, args),
      async ensureNamespace(namespace) {
        await started.ensureNamespace(namespace);
        // Pods need the namespace's default ServiceAccount and CA bundle, which the controller
        // manager adds a moment after the namespace exists.
        const ns = encodeURIComponent(namespace);
        await waitUntil(
          `the default ServiceAccount in ${namespace}`,
          kubelet,
          async () =>
            (await started.request('GET', `/api/v1/namespaces/${ns}/serviceaccounts/default`)).status ===
              200 &&
            (await started.request('GET', `/api/v1/namespaces/${ns}/configmaps/kube-root-ca.crt`)).status ===
              200,
          NODE_READY_MS,
          o.signal,
        );
      },
      daemonLogs(lines = 40) {
        const out: Record<string, string> = { ...started.logs(), containerd: runtime.daemon.tail(lines) };
        for (const d of daemons) out[d.name] = d.tail(lines);
        return out;
      },
      stop,
    };
    return cluster;
  } catch (err) {
    await stop().catch(() => undefined);
    throw err;
  }
}

function nodeReady(r: KubeResponse): boolean {
  if (r.status !== 200) return false;
  const conditions = r.json<{ status?: { conditions?: { type: string; status: string }[] } }>().status
    ?.conditions;
  return conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
}

/** The pause image: the static binary from tools/pause packed as an OCI archive (cached). */
function ensurePauseImage(signal?: AbortSignal): Promise<string> {
  return runBuildScript('tools/pause-image/build.sh', [PAUSE_IMAGE], 'building the pause image', {
    ...(signal ? { signal } : {}),
  });
}

async function teardown(s: {
  daemons: Daemon[];
  cp: KubeControlPlane | undefined;
  containerd: Containerd | undefined;
  holder: NodeHolder | undefined;
  net: NodeNetwork;
  cgroupRoot: string;
  dir: string;
}): Promise<void> {
  const problems: string[] = [];
  // Every step runs whatever the one before did: a step that throws must not leave the control
  // plane, the network namespace or the directory behind. Its error is reported at the end.
  const step = async (what: string, run: () => unknown) => {
    try {
      await run();
    } catch (e) {
      problems.push(`${what}: ${(e as Error).message}`);
    }
  };
  // The kubelet first, so nothing restarts what is stopped next; then every container.
  for (const d of [...s.daemons].reverse()) await step('stop a node daemon', () => d.stop());
  await step('kill the containers', () => killCgroup(s.cgroupRoot));
  await step('stop containerd', () => s.containerd?.stop());
  await step('stop the control plane', () => s.cp?.stop());
  // What is left in the namespace (shims, the mount-namespace holder) goes with it.
  await step('stop the namespace holder', () => s.holder?.stop());
  await step('remove the node network', () => s.net.remove());
  await step('kill what is left in the cgroups', () => killCgroup(s.cgroupRoot));
  await step('remove the cgroups', () => {
    const left = removeCgroupRoot(s.cgroupRoot);
    if (left.length) throw new Error(`left: ${left.join(', ')}`);
  });
  rmSync(s.dir, { recursive: true, force: true });
  if (problems.length) throw new Error(`test cluster teardown: ${problems.join('; ')}`);
}
