import type { Command } from './command.js';
import { COMMAND_FLAGS, DOWN_USAGE, parseStandaloneFlags } from './standalone-flags.js';

/** `down`: deletes what `up` created. */
export const downCommand: Command = {
  name: 'down',
  summary: "delete what `up` created (this state dir's installation)",
  usage: DOWN_USAGE,
  flags: COMMAND_FLAGS.down,
  async run(args, io) {
    const flags = parseStandaloneFlags('down', args);
    return (await import('./down-run.js')).runDown(flags, io);
  },
};
