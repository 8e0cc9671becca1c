import type { VmConfig } from './backend.js';

const DISK_KEY_RE = /^(scsi|virtio|sata|ide)\d+$/;

/** The boot disk key: the first disk in `boot: order=...`, else the first non-cdrom disk. */
export function bootDisk(cfg: VmConfig): string | undefined {
  const isDisk = (k: string) =>
    DISK_KEY_RE.test(k) && typeof cfg[k] === 'string' && !/media=cdrom/.test(String(cfg[k]));
  const order = /order=([^,]+)/.exec(String(cfg.boot ?? ''))?.[1];
  for (const k of order?.split(';') ?? []) if (isDisk(k)) return k;
  return ['scsi0', 'virtio0', 'sata0', 'ide0'].find(isDisk) ?? Object.keys(cfg).sort().find(isDisk);
}

/** `size=32G` of a drive string, in GiB; undefined when absent. */
export function diskSizeGiB(drive: string | number | undefined): number | undefined {
  const m = /(?:^|,)size=(\d+(?:\.\d+)?)([KMGT]?)(?:,|$)/.exec(String(drive ?? ''));
  if (!m) return undefined;
  const n = Number(m[1]);
  const f = { '': 1 / 1024 ** 3, K: 1 / 1024 ** 2, M: 1 / 1024, G: 1, T: 1024 }[
    m[2] as '' | 'K' | 'M' | 'G' | 'T'
  ];
  return n * f;
}

/** Whether any drive is a cloud-init drive: the template must not carry one (ours is the seed ISO). */
export function hasCloudInitDrive(cfg: VmConfig): boolean {
  return Object.entries(cfg).some(([k, v]) => DISK_KEY_RE.test(k) && /cloudinit/.test(String(v)));
}

/** net0 with the bridge and VLAN tag replaced (MAC and other options kept). */
export function rewriteNet0(net0: string, bridge?: string, vlanTag?: number): string {
  const parts = net0.split(',').filter((p) => p !== '');
  const set = (key: string, value: string) => {
    const i = parts.findIndex((p) => p.startsWith(`${key}=`));
    if (i >= 0) parts[i] = `${key}=${value}`;
    else parts.push(`${key}=${value}`);
  };
  if (bridge) set('bridge', bridge);
  if (vlanTag !== undefined) set('tag', String(vlanTag));
  return parts.join(',');
}

/** net0 with its MAC set (`model=MAC` is the first part; PVE generates one when it is absent). */
export function pinMac(net0: string, mac: string): string {
  const parts = net0.split(',').filter((p) => p !== '');
  const first = parts[0] ?? 'virtio';
  const eq = first.indexOf('=');
  const model = eq > 0 ? first.slice(0, eq) : first;
  parts[0] = `${model}=${mac.toUpperCase()}`;
  return parts.join(',');
}
