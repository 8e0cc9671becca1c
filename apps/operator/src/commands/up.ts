import type { Command } from './command.js';
import { parseStandaloneFlags, STANDALONE_OPTIONS, UP_USAGE } from './standalone-flags.js';

/** `up`: Proxies from files, reconciled without a cluster. */
export const upCommand: Command = {
  name: 'up',
  summary: 'run without a cluster: Proxies from files, proxies created through the providers',
  usage: UP_USAGE,
  flags: Object.keys(STANDALONE_OPTIONS),
  trapsSignals: true,
  async run(args, io) {
    const flags = parseStandaloneFlags('up', args);
    return (await import('./standalone-run.js')).runUp(flags, io);
  },
};
