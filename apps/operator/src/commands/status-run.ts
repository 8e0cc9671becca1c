import { resolve } from 'node:path';
import { readState } from '../standalone/state-file.js';
import {
  plainLine,
  plainPoolLine,
  plainProviderLine,
  poolRowOf,
  providerRowOf,
  renderPoolTable,
  renderProviderTable,
  renderTable,
} from '../standalone/status-table.js';
import type { Io } from './command.js';
import { jsonLine, providerJson, proxyJson } from './json-records.js';
import { isAlive } from './pid-alive.js';
import { selfCommand } from './self-command.js';
import type { StandaloneFlags } from './standalone-flags.js';
import { StatusView } from './status-view.js';

/** `status`: the last state `up` wrote, from another shell. */
export function showStatus(flags: StandaloneFlags, io: Io): number {
  const stateDir = resolve(flags.stateDir);
  const state = readState(stateDir);
  if (!state) {
    const why = `no standalone state in ${stateDir} (run ${selfCommand()} up first, or pass --state-dir)`;
    io.err(
      flags.output === 'json' ? jsonLine({ type: 'error', code: 'NO_STATE', message: why }) : `${why}\n`,
    );
    return 1;
  }
  const rows = StatusView.rows(state.proxies);
  const providers = (state.providers ?? []).map(providerRowOf);
  const running = isAlive(state.pid);
  if (flags.output === 'json') {
    io.out(
      jsonLine({
        type: 'status',
        installation: state.installation,
        upRunning: running,
        updatedAt: state.updatedAt,
        proxies: state.proxies.map(proxyJson),
        providers: (state.providers ?? []).map(providerJson),
        pools: (state.pools ?? []).map(({ key, ...pool }) => ({ pool: key, ...pool })),
        issues: state.issues ?? [],
      }),
    );
    return 0;
  }
  const plain = flags.output === 'plain';
  const lines = plain ? rows.map(plainLine) : renderTable(rows, io.columns);
  if (providers.length > 0)
    lines.push(
      ...(plain ? providers.map(plainProviderLine) : ['', ...renderProviderTable(providers, io.columns)]),
    );
  const pools = (state.pools ?? []).map(poolRowOf);
  if (pools.length > 0)
    lines.push(...(plain ? pools.map(plainPoolLine) : ['', ...renderPoolTable(pools, io.columns)]));
  io.out(`${lines.join('\n')}\n`);
  io.out(
    running ? `up is running (pid ${state.pid})\n` : `up is not running; state as of ${state.updatedAt}\n`,
  );
  for (const i of state.issues ?? []) io.out(`invalid Proxy document: ${i}\n`);
  return 0;
}
