import { sleep } from '@egress-proxies/testenv-libvirt';
import { TestEnvVmError } from './errors.js';

export interface AgentCallOptions {
  signal?: AbortSignal;
  /** How long one command may take to answer; default 15 s (TCG guests are slow). */
  timeoutMs?: number;
}

export interface GuestExecOptions extends AgentCallOptions {
  /** Written to the command's stdin. */
  input?: string;
}

export interface GuestExecResult {
  exitCode: number | undefined;
  /** Set when the command was killed by a signal. */
  signal: number | undefined;
  stdout: string;
  stderr: string;
}

/** One guest agent command, answered with its `return` value, over whatever reaches the agent. */
export type AgentCall = <T = unknown>(
  command: string,
  args?: Record<string, unknown>,
  opts?: AgentCallOptions,
) => Promise<T>;

const DEFAULT_TIMEOUT_MS = 15_000;
const EXEC_TIMEOUT_MS = 120_000;

/**
 * Runs `path` (searched on the guest's PATH) through guest-exec, polls guest-exec-status until
 * it exits, and decodes its output. `call` is the way to the agent: its socket (createGuestAgent)
 * or libvirt (libvirtAgentCall).
 */
export async function guestExecVia(
  call: AgentCall,
  path: string,
  args: readonly string[] = [],
  opts: GuestExecOptions = {},
): Promise<GuestExecResult> {
  if (typeof path !== 'string' || path === '') {
    throw new TestEnvVmError('INVALID_ARGUMENT', `exec needs a command path, got ${JSON.stringify(path)}`);
  }
  const deadline = Date.now() + (opts.timeoutMs ?? EXEC_TIMEOUT_MS);
  const step = { signal: opts.signal, timeoutMs: DEFAULT_TIMEOUT_MS } as AgentCallOptions;
  const started = await call<{ pid?: unknown }>(
    'guest-exec',
    {
      path,
      arg: [...args],
      'capture-output': true,
      ...(opts.input !== undefined ? { 'input-data': Buffer.from(opts.input).toString('base64') } : {}),
    },
    step,
  );
  if (typeof started?.pid !== 'number')
    throw new TestEnvVmError('AGENT_PROTOCOL', 'guest-exec returned no pid');
  for (let wait = 100; ; wait = Math.min(wait * 2, 1000)) {
    const st = await call<Record<string, unknown>>('guest-exec-status', { pid: started.pid }, step);
    if (st?.exited === true) {
      const decode = (v: unknown) => (typeof v === 'string' ? Buffer.from(v, 'base64').toString('utf8') : '');
      return {
        exitCode: typeof st.exitcode === 'number' ? st.exitcode : undefined,
        signal: typeof st.signal === 'number' ? st.signal : undefined,
        stdout: decode(st['out-data']),
        stderr: decode(st['err-data']),
      };
    }
    if (Date.now() > deadline) {
      throw new TestEnvVmError('AGENT_TIMEOUT', `${path} (guest pid ${started.pid}) did not exit in time`);
    }
    await sleep(wait, opts.signal);
  }
}
