/** Where a command writes (tests pass their own). */
export interface Io {
  out: (text: string) => void;
  err: (text: string) => void;
  isTTY: boolean;
  /** The terminal's width now (it changes when the window is resized). */
  readonly columns?: number;
  /** Calls `listener` when the terminal is resized; returns the unsubscribe function. */
  onResize?: (listener: () => void) => () => void;
  /** Resolves when the user asks `up` to stop (Ctrl-C); `up` without --once waits on it. */
  interrupted: Promise<void>;
}

/**
 * One CLI command: everything `main` needs to list it, print its help and run it. A command's
 * file holds its entry; the table (table.ts) lists the entries. `run` loads what the command
 * needs when it runs, so listing and help load none of it.
 */
export interface Command {
  name: string;
  /** Other words that run it (`--version` for `version`). */
  aliases?: readonly string[];
  /** How the overall usage shows it, when more than its name (`crds [--out DIR]`). */
  synopsis?: string;
  /** One line for the overall usage. */
  summary: string;
  /** What `<command> --help` prints; ends with a newline. */
  usage: string;
  /** The flags its usage documents, without dashes (checked against the usage by a test). */
  flags: readonly string[];
  /** Traps Ctrl-C to stop cleanly (`io.interrupted`); the others die on it as usual. */
  trapsSignals?: boolean;
  /** Runs with the words after the command; resolves to the exit code. */
  run(args: string[], io: Io): Promise<number>;
}

/** The terminal as an Io: stdout, stderr and, for commands that trap them, Ctrl-C and SIGTERM. */
export function terminalIo(signals = false): Io {
  return {
    out: (t) => process.stdout.write(t),
    err: (t) => process.stderr.write(t),
    isTTY: process.stdout.isTTY === true,
    // Read at each use: a live table cuts its lines to the width the window has now.
    get columns() {
      return process.stdout.columns || undefined;
    },
    onResize: (listener) => {
      process.stdout.on('resize', listener);
      return () => process.stdout.off('resize', listener);
    },
    interrupted: signals
      ? new Promise<void>((resolve) => {
          process.once('SIGINT', () => resolve());
          process.once('SIGTERM', () => resolve());
        })
      : new Promise<void>(() => {}),
  };
}
