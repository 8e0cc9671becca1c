/**
 * A terminal screen as far as a live table uses one: printable characters with auto-wrap at the
 * right margin (the wrap pending until the next character, as xterm does), `\n` (a line feed
 * returns the carriage too, as a tty's output does), `\r`, cursor up (`ESC[nA`), erase below
 * (`ESC[J`), and a resize that reflows wrapped lines as most terminals do. Cells as a terminal
 * counts them, by its own small table (not the code under test's): CJK and emoji take two cells
 * (one that does not fit at the margin wraps first), a combining accent none. Any other control
 * character is kept as written, so a test sees one that got through.
 */
export class Screen {
  rows: { cells: string[]; wrapped: boolean }[] = [{ cells: [], wrapped: false }];
  row = 0;
  col = 0;
  constructor(public width: number) {}

  write(data: string): void {
    for (let i = 0; i < data.length; ) {
      const esc = /^\x1b\[(\d*)([AJ])/.exec(data.slice(i));
      if (esc) {
        if (esc[2] === 'A') this.row = Math.max(0, this.row - Number(esc[1] || 1));
        else {
          const r = this.rows[this.row];
          if (r) r.cells = r.cells.slice(0, this.col);
          this.rows.length = this.row + 1;
        }
        this.col = Math.min(this.col, this.width - 1);
        i += esc[0].length;
        continue;
      }
      const ch = String.fromCodePoint(data.codePointAt(i) as number);
      i += ch.length;
      if (ch === '\r') this.col = 0;
      else if (ch === '\n') this.#newRow(false);
      else this.#put(ch);
    }
  }

  #put(ch: string): void {
    const w = cells(ch);
    if (w === 0) {
      // A combining mark joins the character before it.
      const r = this.#at(this.row);
      const at = Math.max(0, this.col - 1);
      r.cells[at] = `${r.cells[at] ?? ' '}${ch}`;
      return;
    }
    if (this.col + w > this.width) this.#newRow(true);
    const r = this.#at(this.row);
    while (r.cells.length < this.col) r.cells.push(' ');
    r.cells[this.col] = ch;
    if (w === 2) r.cells[this.col + 1] = '';
    this.col += w;
  }

  /** The window gets `width` columns: wrapped rows are joined and wrapped again. */
  resize(width: number): void {
    const logical: string[] = [];
    for (const [i, r] of this.rows.entries()) {
      if (i >= this.row) break;
      const text = r.cells.join('');
      if (r.wrapped && logical.length) logical[logical.length - 1] += text;
      else logical.push(text);
    }
    this.width = width;
    this.rows = [{ cells: [], wrapped: false }];
    this.row = 0;
    this.col = 0;
    for (const l of logical) {
      this.write(l);
      this.#newRow(false);
    }
  }

  /** The text on screen above the cursor, a row each. */
  lines(): string[] {
    return this.rows.slice(0, this.row).map((r) => r.cells.join(''));
  }

  /** Whether any row above the cursor came from a wrap. */
  wrapped(): boolean {
    return this.rows.slice(0, this.row).some((r) => r.wrapped);
  }

  #at(row: number) {
    while (this.rows.length <= row) this.rows.push({ cells: [], wrapped: false });
    return this.rows[row] as { cells: string[]; wrapped: boolean };
  }

  #newRow(wrapped: boolean): void {
    this.row++;
    this.col = 0;
    this.#at(this.row).wrapped = wrapped;
  }
}

/** Cells a character takes on this screen. */
function cells(ch: string): number {
  const cp = ch.codePointAt(0) ?? 0;
  if (cp >= 0x300 && cp <= 0x36f) return 0;
  if (
    (cp >= 0x3040 && cp <= 0x30ff) ||
    (cp >= 0x4e00 && cp <= 0x9fff) ||
    (cp >= 0xac00 && cp <= 0xd7a3) ||
    (cp >= 0x1f300 && cp <= 0x1faff)
  )
    return 2;
  return 1;
}
