/** The Pod network of a test node: one bridge, one /24, no overlay. */
export const POD_CIDR = '10.244.0.0/24';
export const CLUSTER_CIDR = '10.244.0.0/16';
export const SERVICE_CIDR = '10.0.0.0/24';
/** The sandbox image containerd runs for every Pod, built here (tools/pause), never pulled. */
export const PAUSE_IMAGE = 'docker.io/egress-proxies/pause:3.10';

export interface NodeDirs {
  /** containerd's root (images, snapshots) and state (sockets, netns mounts). */
  containerdRoot: string;
  containerdState: string;
  containerdSocket: string;
  cniConfDir: string;
  /** host-local's allocations, so concurrent nodes never share them. */
  ipamDir: string;
}

/**
 * containerd 1.6 (Debian bookworm) for the kubelet: CRI with runc and cgroupfs, Pod network
 * namespaces under its own state dir, the Debian CNI plugins, the local pause image, and OOM
 * scores never set below containerd's own.
 */
export function containerdConfig(d: NodeDirs, cniBinDir = '/usr/lib/cni'): string {
  return `version = 2
root = ${JSON.stringify(d.containerdRoot)}
state = ${JSON.stringify(d.containerdState)}
disabled_plugins = ["io.containerd.snapshotter.v1.aufs", "io.containerd.snapshotter.v1.btrfs", "io.containerd.snapshotter.v1.devmapper", "io.containerd.snapshotter.v1.zfs", "io.containerd.tracing.processor.v1.otlp", "io.containerd.internal.v1.tracing"]

[grpc]
  address = ${JSON.stringify(d.containerdSocket)}

[ttrpc]
  address = ${JSON.stringify(`${d.containerdSocket}.ttrpc`)}

[plugins."io.containerd.internal.v1.opt"]
  path = ${JSON.stringify(`${d.containerdRoot}/opt`)}

[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = ${JSON.stringify(PAUSE_IMAGE)}
  netns_mounts_under_state_dir = true
  enable_selinux = false
  # The kubelet asks for negative OOM scores (-998 for sandboxes); lowering a score needs
  # CAP_SYS_RESOURCE, which the machines running these suites do not grant. Clamp instead.
  restrict_oom_score_adj = true
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
        SystemdCgroup = false
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = ${JSON.stringify(cniBinDir)}
    conf_dir = ${JSON.stringify(d.cniConfDir)}
`;
}

/**
 * The Pods' network: a bridge with host-local addresses from POD_CIDR; traffic leaving the Pod
 * range is masqueraded to the node's address (the namespace's only way out is the link to the
 * host, which has no route back to the Pods).
 */
export function cniConfig(ipamDir: string): string {
  return `${JSON.stringify(
    {
      cniVersion: '0.4.0',
      name: 'ep-pods',
      plugins: [
        {
          type: 'bridge',
          bridge: 'cni0',
          isGateway: true,
          ipMasq: true,
          hairpinMode: true,
          ipam: {
            type: 'host-local',
            dataDir: ipamDir,
            ranges: [[{ subnet: POD_CIDR }]],
            routes: [{ dst: '0.0.0.0/0' }],
          },
        },
        { type: 'portmap', capabilities: { portMappings: true } },
      ],
    },
    null,
    2,
  )}\n`;
}

export interface KubeletSettings {
  cgroupRoot: string;
  containerdSocket: string;
  nodeIP: string;
}

/**
 * The kubelet for this machine: cgroupfs with cgroup v1 accepted (no systemd, a v1 hybrid
 * layout), its Pods under a cgroup root of its own, anonymous read access for the apiserver's
 * logs and exec calls, and eviction and image GC thresholds that a busy CI disk never trips
 * (the images were imported, not pulled: a GC would lose them).
 */
export function kubeletConfig(s: KubeletSettings): string {
  return `${JSON.stringify(
    {
      apiVersion: 'kubelet.config.k8s.io/v1beta1',
      kind: 'KubeletConfiguration',
      cgroupDriver: 'cgroupfs',
      failCgroupV1: false,
      cgroupRoot: s.cgroupRoot,
      cgroupsPerQOS: true,
      enforceNodeAllocatable: ['pods'],
      containerRuntimeEndpoint: `unix://${s.containerdSocket}`,
      address: s.nodeIP,
      port: 10250,
      readOnlyPort: 0,
      healthzBindAddress: '127.0.0.1',
      healthzPort: 10248,
      authentication: { anonymous: { enabled: true }, webhook: { enabled: false } },
      authorization: { mode: 'AlwaysAllow' },
      clusterDomain: 'cluster.local',
      failSwapOn: false,
      protectKernelDefaults: false,
      serializeImagePulls: false,
      evictionHard: {
        'memory.available': '50Mi',
        'nodefs.available': '1%',
        'imagefs.available': '1%',
        'nodefs.inodesFree': '1%',
      },
      imageGCHighThresholdPercent: 100,
      imageGCLowThresholdPercent: 99,
      nodeStatusReportFrequency: '10s',
      syncFrequency: '10s',
      fileCheckFrequency: '10s',
      resolvConf: '',
      // Not below 0: see restrict_oom_score_adj above.
      oomScoreAdj: 0,
    },
    null,
    2,
  )}\n`;
}

export interface KubeProxySettings {
  kubeconfig: string;
  nodeName: string;
}

/**
 * kube-proxy in iptables mode inside the node's namespace. The conntrack settings are left
 * alone: they are machine-wide (or read-only) outside the initial network namespace.
 */
export function kubeProxyConfig(s: KubeProxySettings): string {
  return `${JSON.stringify(
    {
      apiVersion: 'kubeproxy.config.k8s.io/v1alpha1',
      kind: 'KubeProxyConfiguration',
      clientConnection: { kubeconfig: s.kubeconfig },
      hostnameOverride: s.nodeName,
      clusterCIDR: CLUSTER_CIDR,
      mode: 'iptables',
      conntrack: { maxPerCore: 0, min: 0, tcpEstablishedTimeout: '0s', tcpCloseWaitTimeout: '0s' },
      oomScoreAdj: 0,
      metricsBindAddress: '127.0.0.1:10249',
      healthzBindAddress: '127.0.0.1:10256',
    },
    null,
    2,
  )}\n`;
}

/** A kubeconfig with a static token, for a component or the node. */
export function componentKubeconfig(server: string, caFile: string, token: string, user: string): string {
  return `${JSON.stringify(
    {
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'test', cluster: { server, 'certificate-authority': caFile } }],
      users: [{ name: user, user: { token } }],
      contexts: [{ name: 'test', context: { cluster: 'test', user } }],
      'current-context': 'test',
    },
    null,
    2,
  )}\n`;
}
