import { describe, expect, it } from 'vitest';
import {
  cniConfig,
  componentKubeconfig,
  containerdConfig,
  kubeletConfig,
  kubeProxyConfig,
  PAUSE_IMAGE,
  POD_CIDR,
} from './node-config.js';
import { cgroupMountCommands, holderScript } from './node-holder.js';
import { slotAddresses } from './node-network.js';

const dirs = {
  containerdRoot: '/t/root',
  containerdState: '/t/state',
  containerdSocket: '/t/containerd.sock',
  cniConfDir: '/t/net.d',
  ipamDir: '/t/ipam',
};

describe('the node configuration', () => {
  it('points containerd at its own dirs, the local pause image and cgroupfs', () => {
    const c = containerdConfig(dirs);
    expect(c).toContain('root = "/t/root"');
    expect(c).toContain('address = "/t/containerd.sock"');
    expect(c).toContain(`sandbox_image = "${PAUSE_IMAGE}"`);
    expect(c).toContain('SystemdCgroup = false');
    expect(c).toContain('netns_mounts_under_state_dir = true');
    // No CAP_SYS_RESOURCE here: a sandbox's -998 would fail runc's oom_score_adj write.
    expect(c).toContain('restrict_oom_score_adj = true');
    expect(c).toContain('conf_dir = "/t/net.d"');
  });

  it('gives the Pods a bridge with host-local addresses kept in the node dir, masqueraded on the way out', () => {
    const c = JSON.parse(cniConfig('/t/ipam'));
    const bridge = c.plugins[0];
    expect(bridge).toMatchObject({ type: 'bridge', isGateway: true, ipMasq: true });
    expect(bridge.ipam).toMatchObject({
      type: 'host-local',
      dataDir: '/t/ipam',
      ranges: [[{ subnet: POD_CIDR }]],
    });
  });

  it('runs the kubelet on cgroupfs, accepting cgroup v1, under its own cgroup root', () => {
    const k = JSON.parse(
      kubeletConfig({ cgroupRoot: '/ep-1-kube0', containerdSocket: '/t/c.sock', nodeIP: '10.253.0.2' }),
    );
    expect(k).toMatchObject({
      cgroupDriver: 'cgroupfs',
      failCgroupV1: false,
      cgroupRoot: '/ep-1-kube0',
      containerRuntimeEndpoint: 'unix:///t/c.sock',
      address: '10.253.0.2',
      imageGCHighThresholdPercent: 100,
      oomScoreAdj: 0,
    });
  });

  it('leaves the machine-wide conntrack settings to the host', () => {
    const p = JSON.parse(kubeProxyConfig({ kubeconfig: '/k', nodeName: 'n' }));
    expect(p.conntrack).toEqual({
      maxPerCore: 0,
      min: 0,
      tcpEstablishedTimeout: '0s',
      tcpCloseWaitTimeout: '0s',
    });
    expect(p.mode).toBe('iptables');
  });

  it('writes a token kubeconfig for a component', () => {
    const k = JSON.parse(
      componentKubeconfig('https://10.253.0.2:6443', '/ca.crt', 'tok', 'system:kube-proxy'),
    );
    expect(k.clusters[0].cluster).toEqual({
      server: 'https://10.253.0.2:6443',
      'certificate-authority': '/ca.crt',
    });
    expect(k.users[0]).toEqual({ name: 'system:kube-proxy', user: { token: 'tok' } });
  });

  it('gives each slot its own /30 and rejects a slot out of range', () => {
    expect(slotAddresses(3)).toEqual({ hostIP: '10.253.3.1', nodeIP: '10.253.3.2', hostLink: 'ep-kube3' });
    expect(() => slotAddresses(16)).toThrow(/0\.\.15, got 16/);
  });

  it("rebuilds the host's cgroup mounts under the namespace's fresh sysfs, tmpfs first", () => {
    const mounts = [
      'sysfs /sys sysfs rw,nosuid,nodev,noexec,relatime 0 0',
      'cgroup /sys/fs/cgroup/cpu cgroup rw,relatime,cpu 0 0',
      'tmpfs /sys/fs/cgroup tmpfs rw,relatime,mode=755 0 0',
      'cgroup /sys/fs/cgroup/systemd cgroup rw,relatime,name=systemd 0 0',
      'cgroup2 /sys/fs/cgroup/unified cgroup2 rw,relatime 0 0',
      'tmpfs /run tmpfs rw 0 0',
      'cgroup /sys/fs/cgroup/x;rm cgroup rw 0 0',
    ].join('\n');
    expect(cgroupMountCommands(mounts)).toEqual([
      'mount -t tmpfs -o rw,relatime,mode=755 cgroup /sys/fs/cgroup',
      'mkdir -p /sys/fs/cgroup/cpu && mount -t cgroup -o rw,relatime,cpu cgroup /sys/fs/cgroup/cpu',
      'mkdir -p /sys/fs/cgroup/systemd && mount -t cgroup -o rw,relatime,name=systemd cgroup /sys/fs/cgroup/systemd',
      'mkdir -p /sys/fs/cgroup/unified && mount -t cgroup2 -o rw,relatime cgroup2 /sys/fs/cgroup/unified',
    ]);
  });

  it('mounts a private tmpfs on each path the daemons write outside their dirs', () => {
    const s = holderScript(['/var/lib/kubelet']);
    expect(s).toContain('mount -t tmpfs -o mode=0755 ep-kube /var/lib/kubelet');
    expect(s.trim().split('\n').at(-1)).toBe('exec sleep infinity');
  });
});
