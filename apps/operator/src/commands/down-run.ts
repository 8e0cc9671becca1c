import { resolve } from 'node:path';
import { down } from '../standalone/down.js';
import { readState } from '../standalone/state-file.js';
import type { Io } from './command.js';
import { FlagError } from './flag-error.js';
import { jsonLine } from './json-records.js';
import { isAlive } from './pid-alive.js';
import type { StandaloneFlags } from './standalone-flags.js';

/** `down`: deletes what this installation created. */
export async function runDown(flags: StandaloneFlags, io: Io): Promise<number> {
  const stateDir = resolve(flags.stateDir);
  const state = readState(stateDir);
  if (state && isAlive(state.pid))
    throw new FlagError(
      `up (pid ${state.pid}) still reconciles ${stateDir}; stop it first (Ctrl-C), then run down`,
    );
  const json = flags.output === 'json';
  const r = await down({
    providersPath: flags.providers,
    stateDir,
    onLine: (l) => io.out(json ? jsonLine({ type: 'down-step', message: l }) : `${l}\n`),
  });
  if (json) {
    io.out(
      jsonLine({
        type: 'down',
        installation: r.installation ?? null,
        deleted: r.deleted.length,
        errors: r.errors,
      }),
    );
    return r.errors.length ? 1 : 0;
  }
  for (const e of r.errors) io.err(`down: ${e}\n`);
  io.out(`deleted ${r.deleted.length} instance(s) of installation ${r.installation ?? '(none)'}\n`);
  return r.errors.length ? 1 : 0;
}
