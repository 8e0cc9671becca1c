#!/usr/bin/env node
import { terminalIo } from './commands/command.js';
import { dispatch } from './commands/dispatch.js';
import { COMMANDS, USAGE } from './commands/table.js';

// The table holds every command; each loads what it needs when it runs, so `--help` (and a
// typo) loads none of it.
dispatch(process.argv.slice(2), { commands: COMMANDS, usage: USAGE, io: terminalIo }).then((code) => {
  process.exitCode = code;
});
