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
});
