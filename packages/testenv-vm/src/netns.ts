import { isAlive, run, runChecked, terminate } from '@egress-proxies/testenv-libvirt';
import { TestEnvVmError } from './errors.js';

/** Names this package gives its namespaces: `ep-<pid of the owner>-<tag>`. */
const OWNED = /^ep-(\d+)-[a-z0-9]{1,12}$/;
const NAME = /^[a-z0-9][a-z0-9-]{0,30}$/;

export function assertNetnsName(name: string): void {
  if (!NAME.test(name)) {
    throw new TestEnvVmError(
      'INVALID_ARGUMENT',
      `network namespace name ${JSON.stringify(name)} must be 1-31 lowercase letters, digits and '-'`,
    );
  }
}

/** A namespace name owned by this process, so a later run can tell whether its owner is gone. */
export function ownedNetnsName(tag: string): string {
  const name = `ep-${process.pid}-${tag}`;
  if (!OWNED.test(name))
    throw new TestEnvVmError('INVALID_ARGUMENT', `bad namespace tag ${JSON.stringify(tag)}`);
  return name;
}

/** The owner pid of a namespace named by ownedNetnsName, or undefined for any other name. */
export function netnsOwner(name: string): number | undefined {
  const m = OWNED.exec(name);
  return m ? Number(m[1]) : undefined;
}

/** `cmd args` run inside the namespace (`ip netns exec`, which also gives it the namespace's /sys). */
export function inNetns(name: string, cmd: string, args: readonly string[]): [string, string[]] {
  assertNetnsName(name);
  return ['ip', ['netns', 'exec', name, cmd, ...args]];
}

export async function listNetns(signal?: AbortSignal): Promise<string[]> {
  const out = await runChecked('ip', ['netns', 'list'], { signal });
  return out
    .split('\n')
    .map((l) => l.trim().split(/\s+/)[0] ?? '')
    .filter((n) => n.length > 0);
}

/** Creates the namespace with its loopback up; fails loudly when the kernel or `ip` cannot. */
export async function createNetns(name: string, signal?: AbortSignal): Promise<void> {
  assertNetnsName(name);
  if (typeof process.getuid === 'function' && process.getuid() !== 0) {
    throw new TestEnvVmError('PREREQUISITE_MISSING', 'network namespaces need root; run the test as root');
  }
  const r = await run('ip', ['netns', 'add', name], { signal });
  if (r.code !== 0) {
    throw new TestEnvVmError(
      'NETNS_FAILED',
      `cannot create network namespace ${name} (needs root, iproute2 and a kernel with network namespaces): ${r.stderr.trim()}`,
    );
  }
  await runChecked('ip', ['-n', name, 'link', 'set', 'lo', 'up'], { signal });
}

export async function netnsPids(name: string): Promise<number[]> {
  const r = await run('ip', ['netns', 'pids', name]);
  if (r.code !== 0) return [];
  return r.stdout
    .split(/\s+/)
    .filter((s) => /^\d+$/.test(s))
    .map(Number);
}

/** Ends every process still inside the namespace, then removes it. Idempotent. */
export async function deleteNetns(name: string): Promise<void> {
  assertNetnsName(name);
  if (!(await listNetns()).includes(name)) return;
  const pids = await netnsPids(name);
  if (pids.length > 0 && !(await terminate(pids, 10_000))) {
    throw new TestEnvVmError('NETNS_FAILED', `processes ${pids.join(', ')} in ${name} did not exit`);
  }
  const r = await run('ip', ['netns', 'delete', name]);
  if (r.code !== 0 && (await listNetns()).includes(name)) {
    throw new TestEnvVmError('NETNS_FAILED', `cannot delete network namespace ${name}: ${r.stderr.trim()}`);
  }
}

/**
 * Removes namespaces this package made for processes that no longer exist (a killed run), with
 * whatever still runs inside them. Returns the names removed.
 */
export async function removeStaleNetns(): Promise<string[]> {
  const removed: string[] = [];
  for (const name of await listNetns()) {
    const owner = netnsOwner(name);
    if (owner === undefined || owner === process.pid || isAlive(owner)) continue;
    await deleteNetns(name);
    removed.push(name);
  }
  return removed;
}
