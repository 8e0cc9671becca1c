import type { Command } from './command.js';
import { crdsCommand } from './crds.js';
import { downCommand } from './down.js';
import { gatewayCommand } from './gateway.js';
import { GATEWAY_USAGE } from './gateway-usage.js';
import { runCommand } from './run.js';
import { RUN_USAGE } from './run-flags.js';
import { secretCommand } from './secret.js';
import { STANDALONE_USAGE } from './standalone-flags.js';
import { statusCommand } from './status.js';
import { upCommand } from './up.js';
import { versionCommand } from './version.js';

/**
 * Every command of `egress-proxies`, in the order the overall usage lists them. Adding a command:
 * a file exporting its Command, and one entry here; help and dispatch follow from the entry.
 */
export const COMMANDS: readonly Command[] = [
  runCommand,
  crdsCommand,
  upCommand,
  statusCommand,
  downCommand,
  gatewayCommand,
  secretCommand,
  versionCommand,
];

/** Each command's own usage, for `<command> --help`; every text ends with a newline. */
export const COMMAND_USAGE: Readonly<Record<string, string>> = Object.fromEntries(
  COMMANDS.map((c) => [c.name, c.usage]),
);

/** The overall usage: one line per command, then the flags of the commands most run. */
export function overallUsage(commands: readonly Command[], details: readonly string[] = []): string {
  const lines = commands.map((c) => `  ${(c.synopsis ?? c.name).padEnd(16)}  ${c.summary}`);
  return `usage: egress-proxies <command> [flags]

commands:
${lines.join('\n')}

\`egress-proxies <command> --help\` prints one command's flags.
${details.map((d) => `\n${d}`).join('')}`;
}

export const USAGE = overallUsage(COMMANDS, [RUN_USAGE, STANDALONE_USAGE, GATEWAY_USAGE]);
