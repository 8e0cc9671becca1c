import { describe, expect, it } from 'vitest';
import { Screen } from '../../test/support/terminal-screen.js';
import { fitLine, LiveTable } from './live-table.js';

const table = (n: number, footer: string) => [
  'NAME     PROVIDER  PHASE  ADDRESS          HEALTHY  MESSAGE',
  ...Array.from(
    { length: n },
    (_, i) => `proxy-${i}  local     Ready  127.0.0.1:2170${i}  true     ready — ${'x'.repeat(i * 7)}`,
  ),
  `try: curl -x http://127.0.0.1:8080 http://127.0.0.1:41234/${footer}`,
  'Ctrl-C stops reconciling and leaves the proxies running; `egress-proxies down --providers providers.yaml --state-dir .egress-proxies` deletes them.',
];

describe('LiveTable', () => {
  for (const width of [12, 30, 57, 80, 200]) {
    it(`redraws in place at ${width} columns: every line fits, nothing stale`, () => {
      const screen = new Screen(width);
      screen.write('up: started\n');
      const t = new LiveTable((s) => screen.write(s));
      for (const [n, footer] of [
        [1, 'a'],
        [3, 'bb'],
        [2, 'ccc'],
        [3, 'dddd'],
      ] as const) {
        const lines = table(n, footer);
        t.draw(lines, width);
        // The screen holds what was above, then this drawing, a row per line, and nothing else.
        expect(screen.lines()).toEqual(['up: started', ...lines.map((l) => fitLine(l, width))]);
        for (const l of screen.lines()) expect([...l].length).toBeLessThan(width);
        expect(screen.rows.some((r) => r.wrapped)).toBe(false);
      }
    });
  }

  it('cuts a line to one column less than the width, ending in an ellipsis', () => {
    expect(fitLine('abcdef', 6)).toBe('abcd…');
    expect(fitLine('abcde', 6)).toBe('abcde');
    expect(fitLine('héllo wörld', 8)).toBe('héllo …');
    expect(fitLine('anything', undefined)).toBe('anything');
  });

  it('after the window narrows and reflows the table, the redraw erases every reflowed row', () => {
    const screen = new Screen(120);
    screen.write('above\n');
    const t = new LiveTable((s) => screen.write(s));
    t.draw(table(3, 'e'), 120);
    screen.resize(40);
    // The old lines now wrap on screen: more rows than lines.
    expect(screen.lines().length).toBeGreaterThan(1 + table(3, 'e').length);
    t.draw(table(3, 'f'), 40);
    expect(screen.lines()).toEqual(['above', ...table(3, 'f').map((l) => fitLine(l, 40))]);
    // Widening needs no reflow: the cut lines still take a row each.
    screen.resize(100);
    t.draw(table(2, 'g'), 100);
    expect(screen.lines()).toEqual(['above', ...table(2, 'g').map((l) => fitLine(l, 100))]);
  });

  it('draws nothing after stop (Ctrl-C), and what follows goes below the last drawing', () => {
    const screen = new Screen(80);
    const t = new LiveTable((s) => screen.write(s));
    t.draw(table(1, 'a'), 80);
    t.stop();
    t.draw(table(2, 'b'), 80);
    screen.write('stopped reconciling\n');
    expect(screen.lines()).toEqual([...table(1, 'a').map((l) => fitLine(l, 80)), 'stopped reconciling']);
  });
});
