/**
 * A block of lines redrawn in place on a terminal: the cursor goes back up over what was drawn,
 * the rest of the screen is erased, the new lines are written. That only works if the terminal
 * shows each drawn line on exactly one row, so every line is cut to the terminal's width (a
 * wrapped line takes two rows and the cursor-up would leave a stale copy above). A resize reflows
 * what is on screen: the rows the old lines take at the new width are erased.
 */
export class LiveTable {
  readonly #write: (text: string) => void;
  /** Columns each line on screen takes, and the width they were cut to. */
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
    this.#drawn = fitted.map(columnsOf);
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
 * The line as one row of plain text, cut to `width - 1` columns, the last visible one an
 * ellipsis: the last column stays free, since some terminals wrap as soon as it is written.
 * Control characters go first (a provider's message may hold a newline, which would take a row
 * the redraw does not count, or an escape sequence, which is not ours to send to the terminal),
 * then columns are counted as a terminal draws them: a wide character (CJK, emoji) takes two, a
 * combining mark none.
 */
export function fitLine(line: string, width?: number): string {
  const text = printable(line);
  if (!width || width < 2) return text;
  const max = width - 1;
  if (columnsOf(text) <= max) return text;
  let out = '';
  let used = 0;
  for (const { segment } of graphemes.segment(text)) {
    const w = graphemeColumns(segment);
    if (used + w > max - 1) break;
    out += segment;
    used += w;
  }
  return `${out}…`;
}

const graphemes = new Intl.Segmenter('en', { granularity: 'grapheme' });

/** C0 and C1 controls and DEL: a tab or line break reads as a space, anything else as U+FFFD. */
export function printable(line: string): string {
  return line.replace(/[\t\n\r\v\f]/g, ' ').replace(/[\u0000-\u001f\u007f-\u009f]/g, '\ufffd');
}

/** The columns a terminal gives `text`. */
export function columnsOf(text: string): number {
  let n = 0;
  for (const { segment } of graphemes.segment(text)) n += graphemeColumns(segment);
  return n;
}

const ZERO_WIDTH = /^[\p{Mn}\p{Me}\p{Cf}]+$/u;
const EMOJI = /\p{Emoji_Presentation}|\p{Extended_Pictographic}\ufe0f/u;

function graphemeColumns(g: string): number {
  if (ZERO_WIDTH.test(g)) return 0;
  if (EMOJI.test(g)) return 2;
  return isWide(g.codePointAt(0) ?? 0) ? 2 : 1;
}

/** East Asian Wide and Fullwidth blocks (Unicode's EastAsianWidth W and F, by block). */
function isWide(cp: number): boolean {
  return (
    (cp >= 0x1100 && cp <= 0x115f) ||
    (cp >= 0x2e80 && cp <= 0x303e) ||
    (cp >= 0x3041 && cp <= 0x33ff) ||
    (cp >= 0x3400 && cp <= 0x4dbf) ||
    (cp >= 0x4e00 && cp <= 0x9fff) ||
    (cp >= 0xa000 && cp <= 0xa4cf) ||
    (cp >= 0xac00 && cp <= 0xd7a3) ||
    (cp >= 0xf900 && cp <= 0xfaff) ||
    (cp >= 0xfe30 && cp <= 0xfe4f) ||
    (cp >= 0xff00 && cp <= 0xff60) ||
    (cp >= 0xffe0 && cp <= 0xffe6) ||
    (cp >= 0x20000 && cp <= 0x3fffd)
  );
}

/**
 * How many rows lines of these widths take now: one each at the width they were cut to; after
 * the terminal narrowed, a line it reflowed takes as many rows as it needs at the new width.
 */
export function rowsOnScreen(lengths: readonly number[], drawnWidth?: number, width?: number): number {
  if (!width || !drawnWidth || width >= drawnWidth) return lengths.length;
  return lengths.reduce((n, len) => n + Math.max(1, Math.ceil(len / width)), 0);
}
