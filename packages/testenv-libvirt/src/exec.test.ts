import { describe, expect, it } from 'vitest';
import { run } from './exec.js';

describe('run', () => {
  it('starts the command in a session of its own (no controlling terminal to inherit)', async () => {
    // Field 6 of /proc/<pid>/stat is the session id: a session leader's is its own pid.
    const r = await run('sh', ['-c', 'echo $$; cut -d" " -f6 /proc/$$/stat']);
    const [pid, session] = r.stdout.trim().split('\n');
    expect(r.code).toBe(0);
    expect(session).toBe(pid);
  });

  it('still returns stdout, stderr and the exit code', async () => {
    const r = await run('sh', ['-c', 'echo out; echo err >&2; exit 3']);
    expect(r).toMatchObject({ code: 3, stdout: 'out\n', stderr: 'err\n' });
  });

  it('an aborted command is killed and the call rejects with the reason', async () => {
    const ac = new AbortController();
    const pending = run('sleep', ['600'], { signal: ac.signal });
    setTimeout(() => ac.abort(new Error('stop')), 100);
    await expect(pending).rejects.toThrow('stop');
  });

  it('returns once the command exits, though a process it left behind holds the output open', async () => {
    // The background sleep inherits stdout and stderr; without the grace, 'close' waits for it.
    const r = await run('sh', ['-c', 'echo before; sleep 30 & echo $!; exit 4']);
    expect(r.code).toBe(4);
    const [first, leftPid] = r.stdout.trim().split('\n');
    expect(first).toBe('before');
    // Returned while the process holding the pipes still runs (signal 0 only checks it exists).
    expect(() => process.kill(Number(leftPid), 0)).not.toThrow();
    process.kill(Number(leftPid), 'SIGKILL');
  });

  it('a timed-out command whose child holds the pipes returns after the kill', async () => {
    const r = await run('sh', ['-c', 'sleep 30 & echo $!; sleep 30'], { timeoutMs: 200 });
    expect(r.signal).toBe('SIGKILL');
    expect(() => process.kill(Number(r.stdout.trim()), 0)).not.toThrow();
    process.kill(Number(r.stdout.trim()), 'SIGKILL');
  });
});
