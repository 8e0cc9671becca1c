import type { Command } from './command.js';
import { COMMAND_FLAGS, parseStandaloneFlags, STATUS_USAGE } from './standalone-flags.js';

/** `status`: what a running (or the last) `up` reported, from another shell. */
export const statusCommand: Command = {
  name: 'status',
  summary: 'the status an `up` reported, from another shell',
  usage: STATUS_USAGE,
  flags: COMMAND_FLAGS.status,
  async run(args, io) {
    const flags = parseStandaloneFlags('status', args);
    return (await import('./status-run.js')).showStatus(flags, io);
  },
};
