import { readFileSync } from 'node:fs';
import { GATEWAY_USAGE } from './gateway-usage.js';
import { RUN_USAGE } from './run-flags.js';
import { SECRET_USAGE } from './secret-usage.js';
import { STANDALONE_USAGE } from './standalone-flags.js';

export const CRDS_USAGE = `usage: egress-proxies crds [--out DIR]

  --out DIR                     write one file per CRD into DIR (default: print them, separated by ---)
`;

export const VERSION_USAGE = `usage: egress-proxies version
       egress-proxies --version

Prints the package version (egress-proxies X.Y.Z) and exits 0; takes no flags.
`;

/** Each command's own usage, for `<command> --help`; every text ends with a newline. */
export const COMMAND_USAGE: Readonly<Record<string, string>> = {
  run: RUN_USAGE,
  crds: CRDS_USAGE,
  up: STANDALONE_USAGE,
  status: STANDALONE_USAGE,
  down: STANDALONE_USAGE,
  secret: SECRET_USAGE,
  gateway: GATEWAY_USAGE,
  version: VERSION_USAGE,
};

/** `--help`/`-h` anywhere before a `--` asks for the usage, whatever else is on the line. */
export function wantsHelp(args: readonly string[]): boolean {
  const end = args.indexOf('--');
  return (end < 0 ? args : args.slice(0, end)).some((a) => a === '--help' || a === '-h');
}

/** The package's version, read beside the built CLI (dist/../package.json). */
export function cliVersion(): string {
  const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
    version: string;
  };
  return manifest.version;
}

/**
 * `--output json` (or `-o json`) on the command line: errors are then printed as a JSON record
 * too, so a script reading the output never meets a line it cannot parse.
 */
export function jsonOutputRequested(args: readonly string[]): boolean {
  return args.some(
    (a, i) =>
      a === '--output=json' || a === '-ojson' || ((a === '--output' || a === '-o') && args[i + 1] === 'json'),
  );
}
