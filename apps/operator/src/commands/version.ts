import { readFileSync } from 'node:fs';
import type { Command } from './command.js';
import { FlagReader } from './flag-reader.js';
import { RUN_WORDING } from './run-flags.js';

export const VERSION_USAGE = `usage: egress-proxies version
       egress-proxies --version

Prints the package version (egress-proxies X.Y.Z) and exits 0; takes no flags.
`;

/** The package's version, read beside the built CLI (dist/../package.json). */
export function cliVersion(): string {
  const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
    version: string;
  };
  return manifest.version;
}

/** `version` (also `--version`, `-v`): the package version. */
export const versionCommand: Command = {
  name: 'version',
  aliases: ['--version', '-v'],
  summary: 'print the version (also --version)',
  usage: VERSION_USAGE,
  flags: [],
  async run(args, io) {
    // Strict like every command: an unknown flag or a stray word is refused, naming it.
    new FlagReader(args, {}, RUN_WORDING, 'version');
    io.out(`egress-proxies ${cliVersion()}\n`);
    return 0;
  },
};
