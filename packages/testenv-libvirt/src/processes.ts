import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { sleep } from './abort.js';

interface ProcStat {
  pid: number;
  comm: string;
  state: string;
  ppid: number;
}

function readStat(pid: number): ProcStat | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // comm is parenthesised and may itself contain spaces or parentheses.
    const open = text.indexOf('(');
    const close = text.lastIndexOf(')');
    const rest = text.slice(close + 2).split(' ');
    return { pid, comm: text.slice(open + 1, close), state: rest[0] ?? '?', ppid: Number(rest[1]) };
  } catch {
    return undefined;
  }
}

function allPids(): number[] {
  return readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .map(Number);
}

/** Alive means present and not a zombie: an unreaped daemon has already released its sockets. */
export function isAlive(pid: number): boolean {
  const st = readStat(pid);
  return st !== undefined && st.state !== 'Z' && st.state !== 'X';
}

export function processName(pid: number): string | undefined {
  return readStat(pid)?.comm;
}

function netnsOf(pid: number | 'self'): string | undefined {
  try {
    return readlinkSync(`/proc/${pid}/ns/net`);
  } catch {
    return undefined;
  }
}

/**
 * Live processes in this process's network namespace whose kernel name (comm, at most 15 chars)
 * equals `name`. A daemon of the same name inside another namespace (a private libvirtd of an
 * end-to-end run) is someone else's and never counted or signalled.
 */
export function findProcesses(name: string): number[] {
  const ours = netnsOf('self');
  return allPids().filter((pid) => {
    const st = readStat(pid);
    return (
      st !== undefined && st.comm === name && st.state !== 'Z' && st.state !== 'X' && netnsOf(pid) === ours
    );
  });
}

/** The pid recorded in a pid file if that process is alive and has the expected name. */
export function livePidFromFile(pidFile: string, name: string): number | undefined {
  let pid: number;
  try {
    pid = Number.parseInt(readFileSync(pidFile, 'utf8').trim(), 10);
  } catch {
    return undefined;
  }
  if (!Number.isInteger(pid) || pid <= 0) return undefined;
  return isAlive(pid) && processName(pid) === name ? pid : undefined;
}

/** All live descendants of `root` (children first discovered through the ppid chain). */
export function descendants(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const pid of allPids()) {
    const st = readStat(pid);
    if (!st) continue;
    const list = children.get(st.ppid) ?? [];
    list.push(pid);
    children.set(st.ppid, list);
  }
  const out: number[] = [];
  const stack = [...(children.get(root) ?? [])];
  while (stack.length > 0) {
    const pid = stack.pop()!;
    out.push(pid);
    stack.push(...(children.get(pid) ?? []));
  }
  return out;
}

function signal(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch {
    // already gone
  }
}

/** SIGTERM, then SIGKILL after `graceMs`; resolves once none of the pids is alive. */
export async function terminate(pids: readonly number[], graceMs = 10_000): Promise<boolean> {
  for (const pid of pids) signal(pid, 'SIGTERM');
  const deadline = Date.now() + graceMs;
  while (pids.some(isAlive)) {
    if (Date.now() > deadline) {
      for (const pid of pids) if (isAlive(pid)) signal(pid, 'SIGKILL');
      const hard = Date.now() + 5_000;
      while (pids.some(isAlive)) {
        if (Date.now() > hard) return false;
        await sleep(50);
      }
      return true;
    }
    await sleep(50);
  }
  return true;
}
