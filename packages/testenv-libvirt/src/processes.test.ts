import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { sleep } from './abort.js';
import { findProcesses } from './processes.js';

const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) c.kill('SIGKILL');
});

async function started(cmd: string, args: string[]): Promise<number> {
  const c = spawn(cmd, args, { stdio: 'ignore' });
  children.push(c);
  // unshare execs sleep after entering the namespace; wait until the kernel name says so.
  for (let i = 0; i < 100; i++) {
    if (c.pid !== undefined && findCommOf(c.pid) === 'sleep') return c.pid;
    await sleep(20);
  }
  throw new Error(`${cmd} did not become sleep`);
}

function findCommOf(pid: number): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
  } catch {
    return undefined;
  }
}

describe('findProcesses', () => {
  it('finds a daemon in this network namespace and ignores one of the same name in another', async () => {
    const here = await started('sleep', ['300']);
    const elsewhere = await started('unshare', ['--net', 'sleep', '300']);
    const found = findProcesses('sleep');
    expect(found).toContain(here);
    expect(found).not.toContain(elsewhere);
  });
});
