import { readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isAlive } from '@egress-proxies/testenv-libvirt';
import { removeStaleNetns } from '@egress-proxies/testenv-vm';
import { killCgroup, removeCgroupRoot, staleCgroupRoots } from './cgroups.js';

const OWNED_DIR = /^ep-(\d+)-kube\d+-/;

/**
 * Removes what a killed test cluster left (its owner pid is in every name): the network
 * namespace with whatever still runs in it, the containers under its cgroup root and the root
 * itself, and its directory under the OS temp dir.
 */
export async function removeStaleNodes(): Promise<string[]> {
  const removed = await removeStaleNetns();
  for (const name of staleCgroupRoots(isAlive)) {
    await killCgroup(name);
    removeCgroupRoot(name);
    removed.push(name);
  }
  for (const d of readdirSync(tmpdir())) {
    const m = OWNED_DIR.exec(d);
    if (m && !isAlive(Number(m[1]))) {
      rmSync(join(tmpdir(), d), { recursive: true, force: true });
      removed.push(d);
    }
  }
  return removed;
}
