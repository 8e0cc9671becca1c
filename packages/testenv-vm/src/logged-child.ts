import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';

export interface LoggedChild {
  child: ChildProcess;
  /** How it ended (`exit code 1`, `signal SIGKILL`, a spawn error), or undefined while it runs. */
  exited(): string | undefined;
}

/** Starts a daemon with stdout and stderr appended to `logPath`, remembering how it ended. */
export function spawnLogged(cmd: string, args: readonly string[], logPath: string): LoggedChild {
  const fd = openSync(logPath, 'a');
  let exited: string | undefined;
  let child: ChildProcess;
  try {
    child = spawn(cmd, args, { stdio: ['ignore', fd, fd] });
  } finally {
    closeSync(fd);
  }
  child.on('exit', (code, sig) => {
    exited = sig ? `signal ${sig}` : `exit code ${code}`;
  });
  child.on('error', (e) => {
    exited = e.message;
  });
  return { child, exited: () => exited };
}
