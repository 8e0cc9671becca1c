import { setTimeout as delay } from 'node:timers/promises';
import { virsh } from '@egress-proxies/testenv-libvirt';

export interface GuestExecResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs a command in a libvirt guest through its guest agent (`guest-exec`, then
 * `guest-exec-status` until it exits) and returns its output.
 */
export async function guestExec(
  uri: string,
  domain: string,
  path: string,
  args: readonly string[],
  opts: { signal?: AbortSignal; timeoutMs?: number } = {},
): Promise<GuestExecResult> {
  const call = async (execute: string, args: unknown) => {
    const out = await virsh(['qemu-agent-command', domain, JSON.stringify({ execute, arguments: args })], {
      uri,
      signal: opts.signal,
    });
    return (JSON.parse(out) as { return: Record<string, unknown> }).return;
  };
  const started = await call('guest-exec', { path, arg: args, 'capture-output': true });
  const pid = started.pid as number;
  const deadline = Date.now() + (opts.timeoutMs ?? 30_000);
  for (;;) {
    const st = await call('guest-exec-status', { pid });
    if (st.exited === true) {
      const text = (k: string) => Buffer.from(String(st[k] ?? ''), 'base64').toString('utf8');
      return { exitCode: Number(st.exitcode ?? -1), stdout: text('out-data'), stderr: text('err-data') };
    }
    if (Date.now() > deadline)
      throw new Error(`${path} in ${domain} did not exit within ${opts.timeoutMs ?? 30_000} ms`);
    await delay(250, undefined, { signal: opts.signal });
  }
}
