/**
 * A terminal screen as far as a live table uses one: printable characters with auto-wrap at the
 * right margin (the wrap pending until the next character, as xterm does), `\n` (a line feed
 * returns the carriage too, as a tty's output does), `\r`, cursor up (`ESC[nA`), erase below (`ESC[J`), and a resize that reflows wrapped
 * lines as most terminals do.
 */
export class Screen {
  rows: { text: string; wrapped: boolean }[] = [{ text: '', wrapped: false }];
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
          if (r) r.text = r.text.slice(0, this.col);
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
      else {
        if (this.col >= this.width) this.#newRow(true);
        const r = this.#at(this.row);
        const chars = [...r.text];
        while (chars.length < this.col) chars.push(' ');
        chars[this.col] = ch;
        r.text = chars.join('');
        this.col++;
      }
    }
  }

  /** The window gets `width` columns: wrapped rows are joined and wrapped again. */
  resize(width: number): void {
    const logical: string[] = [];
    for (const [i, r] of this.rows.entries()) {
      if (i >= this.row) break;
      if (r.wrapped && logical.length) logical[logical.length - 1] += r.text;
      else logical.push(r.text);
    }
    this.width = width;
    this.rows = [];
    for (const l of logical) {
      const chars = [...l];
      let first = true;
      do {
        this.rows.push({ text: chars.splice(0, width).join(''), wrapped: !first });
        first = false;
      } while (chars.length);
    }
    this.row = this.rows.length;
    this.col = 0;
    this.rows.push({ text: '', wrapped: false });
  }

  /** The text on screen above the cursor, a row each. */
  lines(): string[] {
    return this.rows.slice(0, this.row).map((r) => r.text);
  }

  #at(row: number) {
    while (this.rows.length <= row) this.rows.push({ text: '', wrapped: false });
    return this.rows[row] as { text: string; wrapped: boolean };
  }

  #newRow(wrapped: boolean): void {
    this.row++;
    this.col = 0;
    this.#at(this.row).wrapped = wrapped;
  }
}
