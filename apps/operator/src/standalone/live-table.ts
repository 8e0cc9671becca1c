/**
 * A block of lines redrawn in place on a terminal: the cursor goes back up over what was drawn,
 * the rest of the screen is erased, the new lines are written. That only works if the terminal
 * shows each drawn line on exactly one row, so every line is cut to the terminal's width (a
 * wrapped line takes two rows and the cursor-up would leave a stale copy above). A resize reflows
 * what is on screen: the rows the old lines take at the new width are erased.
 */
export class LiveTable {
  readonly #write: (text: string) => void;
  /** Code points of each line on screen, and the width they were cut to. */
  #drawn: number[] = [];
  #width: number | undefined;
  #stopped = false;

  constructor(write: (text: string) => void) {
    this.#write = write;
  }

  /** Draws `lines` over the previous drawing, each cut to fit `width` columns when given. */
  draw(lines: readonly string[], width?: number): void {
    if (this.#stopped) return;
    const fitted = lines.map((l) => fitLine(l, width));
    const rows = rowsOnScreen(this.#drawn, this.#width, width);
    const erase = rows > 0 ? `\x1b[${rows}A\x1b[J` : '';
    this.#write(`${erase}${fitted.map((l) => `${l}\n`).join('')}`);
    this.#drawn = fitted.map((l) => [...l].length);
    this.#width = width;
  }

  /** What follows is written below the last drawing, which stays on screen. */
  release(): void {
    this.#drawn = [];
  }

  /** No drawing any more (after Ctrl-C the table is not printed again). */
  stop(): void {
    this.#stopped = true;
    this.release();
  }
}

/**
 * The line cut to `width - 1` columns, the last visible one an ellipsis: the last column stays
 * free, since some terminals wrap as soon as it is written. Counts code points, not UTF-16 units.
 */
export function fitLine(line: string, width?: number): string {
  if (!width || width < 2) return line;
  const chars = [...line];
  const max = width - 1;
  return chars.length <= max ? line : `${chars.slice(0, max - 1).join('')}…`;
}

/**
 * How many rows lines of these lengths take now: one each at the width they were cut to; after
 * the terminal narrowed, a line it reflowed takes as many rows as it needs at the new width.
 */
export function rowsOnScreen(lengths: readonly number[], drawnWidth?: number, width?: number): number {
  if (!width || !drawnWidth || width >= drawnWidth) return lengths.length;
  return lengths.reduce((n, len) => n + Math.max(1, Math.ceil(len / width)), 0);
}
