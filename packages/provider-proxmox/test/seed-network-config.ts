import { rootFileOfIso } from '@egress-proxies/kvm-common/test';
import type { FakePve } from '../src/test/index.js';

/**
 * The network-config file of a VM's seed ISO as the fake PVE stored it, read out of the ISO 9660
 * root directory (NoCloud seeds are flat), or undefined when there is no seed or no such file.
 */
export function seedNetworkConfig(fake: FakePve, node: string, name: string): string | undefined {
  const vol = fake.volumes(node, 'local').get(`iso/${name}-seed.iso`);
  const file = vol?.data ? rootFileOfIso(vol.data, 'NETWORK_.;1') : undefined;
  return file ? new TextDecoder().decode(file) : undefined;
}
