import { spawn } from 'node:child_process';
import { TestEnvError } from './errors.js';

export interface RunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  signal?: AbortSignal;
  env?: NodeJS.ProcessEnv;
  input?: string;
  timeoutMs?: number;
}

/** How long output pipes may stay open once the command has exited. */
const PIPES_AFTER_EXIT_MS = 2_000;

/** Runs a command to completion and never throws for a non-zero exit (see runChecked). */
export function run(cmd: string, args: readonly string[], opts: RunOptions = {}): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    if (opts.signal?.aborted) {
      reject(opts.signal.reason);
      return;
    }
    // A session of its own, so no controlling terminal is inherited: virsh starts polkit's text
    // agent (pkttyagent) whenever it can open one and pkttyagent is installed, and that agent
    // prints "Authorization not available. Check if polkit service is running ..." on stderr when
    // polkitd is not running (installed but stopped, as on a fresh Debian machine). Nothing run
    // here may prompt anyway: every command is non-interactive.
    const child = spawn(cmd, args, {
      env: opts.env ?? process.env,
      stdio: [opts.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
      detached: true,
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout?.on('data', (c: Buffer) => out.push(c));
    child.stderr?.on('data', (c: Buffer) => err.push(c));
    let timer: NodeJS.Timeout | undefined;
    const onAbort = () => child.kill('SIGKILL');
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    if (opts.timeoutMs !== undefined) timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs);
    if (opts.input !== undefined) child.stdin?.end(opts.input);
    child.on('error', (e) => {
      cleanup();
      reject(new TestEnvError('COMMAND_FAILED', `cannot run ${cmd}: ${e.message}`, { cause: e }));
    });
    // Once the command has exited, a process it left behind may still hold its output pipes
    // open (a daemon it started, a helper it forked): 'close' would then wait for that process,
    // and a killed command's call would never return. Past a short grace the pipes are closed
    // here, and the call returns with what the command itself wrote.
    let grace: NodeJS.Timeout | undefined;
    child.once('exit', () => {
      grace = setTimeout(() => {
        child.stdout?.destroy();
        child.stderr?.destroy();
      }, PIPES_AFTER_EXIT_MS);
      grace.unref();
    });
    child.on('close', (code, sig) => {
      cleanup();
      if (grace) clearTimeout(grace);
      if (opts.signal?.aborted) {
        reject(opts.signal.reason);
        return;
      }
      resolve({
        code,
        signal: sig,
        stdout: Buffer.concat(out).toString('utf8'),
        stderr: Buffer.concat(err).toString('utf8'),
      });
    });
    function cleanup() {
      if (timer) clearTimeout(timer);
      opts.signal?.removeEventListener('abort', onAbort);
    }
  });
}

/** Like run, but a non-zero exit becomes a COMMAND_FAILED error carrying stderr. */
export async function runChecked(
  cmd: string,
  args: readonly string[],
  opts: RunOptions = {},
): Promise<string> {
  const r = await run(cmd, args, opts);
  if (r.code !== 0) {
    const why = r.signal ? `signal ${r.signal}` : `exit code ${r.code}`;
    const detail = (r.stderr.trim() || r.stdout.trim()).slice(-2000);
    throw new TestEnvError('COMMAND_FAILED', `${cmd} ${args.join(' ')} failed (${why}): ${detail}`);
  }
  return r.stdout;
}
