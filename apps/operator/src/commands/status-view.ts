import { LiveTable } from '../standalone/live-table.js';
import type { ProxyRecord } from '../standalone/state-file.js';
import { plainLine, renderTable, rowOf, type StatusRow } from '../standalone/status-table.js';
import type { Io } from './command.js';
import { type JsonRecord, jsonLine, proxyJson } from './json-records.js';
import type { StandaloneFlags } from './standalone-flags.js';

/** Renders status as a live table (a terminal), a line per change (plain) or JSON lines. */
export class StatusView {
  readonly #mode: 'table' | 'plain' | 'json';
  #last = new Map<string, string>();
  readonly #table: LiveTable;
  footer: string[] = [];

  constructor(
    private readonly io: Io,
    mode: StandaloneFlags['output'],
  ) {
    this.#mode = mode === 'auto' ? (io.isTTY ? 'table' : 'plain') : mode;
    this.#table = new LiveTable(io.out);
  }

  get mode() {
    return this.#mode;
  }

  update(records: ProxyRecord[]): void {
    const rows = records.map((r) => rowOf(r));
    if (this.#mode === 'table') {
      const width = this.io.columns;
      this.#table.draw([...renderTable(rows, width), ...this.footer], width);
      return;
    }
    const seen = new Set<string>();
    for (const [i, row] of rows.entries()) {
      seen.add(row.name);
      const record = records[i] as ProxyRecord;
      const text = this.#mode === 'json' ? JSON.stringify(proxyJson(record)) : plainLine(row);
      if (this.#last.get(row.name) === text) continue;
      this.#last.set(row.name, text);
      this.io.out(`${text}\n`);
    }
    for (const name of [...this.#last.keys()]) {
      if (seen.has(name)) continue;
      this.#last.delete(name);
      const [namespace, short] = name.includes('/') ? name.split('/', 2) : ['default', name];
      this.io.out(
        this.#mode === 'json'
          ? jsonLine({ type: 'proxy', namespace, name: short, phase: 'Deleted', deleting: false })
          : `${name} deleted\n`,
      );
    }
  }

  /** A message below the table, or a line of its own. */
  say(text: string, json: JsonRecord): void {
    if (this.#mode === 'json') this.io.out(jsonLine(json));
    else if (this.#mode === 'table') this.footer.push(text);
    else this.io.out(`${text}\n`);
  }

  /** A warning: on stderr, or (in json mode, which keeps stderr quiet) a record on stdout. */
  warn(text: string, json: JsonRecord): void {
    if (this.#mode === 'json') this.io.out(jsonLine(json));
    else this.io.err(`${text}\n`);
  }

  /** Stops redrawing: what follows is printed below the last table. */
  release(): void {
    this.#table.release();
  }

  /** Ctrl-C: the table stays as it is on screen and is not drawn again. */
  interrupted(): void {
    this.#table.stop();
  }

  static rows(records: ProxyRecord[]): StatusRow[] {
    return records.map((r) => rowOf(r));
  }
}
