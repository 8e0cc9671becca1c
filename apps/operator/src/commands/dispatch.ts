import { closest } from '@egress-proxies/provider-utils';
import type { Command, Io } from './command.js';
import { FlagError } from './flag-error.js';

/** `--help`/`-h` anywhere before a `--` asks for the usage, whatever else is on the line. */
export function wantsHelp(args: readonly string[]): boolean {
  const end = args.indexOf('--');
  return (end < 0 ? args : args.slice(0, end)).some((a) => a === '--help' || a === '-h');
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

const HELP_WORDS = ['help', '--help', '-h'];

/** The command a word names (its name or an alias), or undefined. */
export function commandNamed(commands: readonly Command[], word: string): Command | undefined {
  return commands.find((c) => c.name === word || c.aliases?.includes(word));
}

export interface DispatchOptions {
  commands: readonly Command[];
  /** The overall usage, for `help` and for a line without a command. */
  usage: string;
  /** The Io a command runs with; `trapsSignals` from its entry. */
  io(trapsSignals: boolean): Io;
}

/** A command's failure as the user sees it: exit 2 for a mistake in the input, 1 otherwise. */
function reportFailure(err: unknown, args: readonly string[], io: Io): number {
  // By its code, not its class: the contract is not loaded for a flag mistake.
  const bad =
    (err as { code?: unknown } | null)?.code === 'INVALID_PROVIDERS_CONFIG' || FlagError.isInstance(err);
  const message = err instanceof Error ? err.message : String(err);
  if (jsonOutputRequested(args)) {
    // --output json: the error is a record too, so a script never meets an unparsable line.
    io.err(`${JSON.stringify({ type: 'error', code: bad ? 'INVALID_INPUT' : 'FAILED', message })}\n`);
    return bad ? 2 : 1;
  }
  io.err(`egress-proxies: ${message}\n`);
  return bad ? 2 : 1;
}

/**
 * Runs the command `argv` names, through the table: its `--help`, its run, its failure. An
 * unknown command is refused with the closest name, when one is close.
 */
export async function dispatch(argv: readonly string[], opts: DispatchOptions): Promise<number> {
  const [word, ...rest] = argv;
  const command = word === undefined ? undefined : commandNamed(opts.commands, word);
  const plain = opts.io(false);
  if (command && wantsHelp(rest)) {
    plain.out(command.usage);
    return 0;
  }
  if (!command) {
    if (word === undefined || HELP_WORDS.includes(word)) {
      plain.out(opts.usage);
      return word === undefined ? 2 : 0;
    }
    const guess = closest(
      word,
      opts.commands.map((c) => c.name),
    );
    plain.err(
      `unknown command ${JSON.stringify(word)}${guess ? ` (did you mean ${guess}?)` : ''}\n\n${opts.usage}`,
    );
    return 2;
  }
  try {
    return await command.run(rest, command.trapsSignals ? opts.io(true) : plain);
  } catch (err) {
    return reportFailure(err, rest, plain);
  }
}
