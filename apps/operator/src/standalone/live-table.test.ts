import { describe, expect, it } from 'vitest';
import { Screen } from '../../test/support/terminal-screen.js';
import { columnsOf, fitLine, LiveTable } from './live-table.js';

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
        expect(screen.wrapped()).toBe(false);
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

  // A provider's message is the user's language and the backend's text: wide characters, emoji,
  // accents made of combining marks, and now and then a line break or an escape sequence.
  const worldly = (n: number, footer: string) => [
    'NAME     PROVIDER  PHASE         MESSAGE',
    ...Array.from(
      { length: n },
      (_, i) =>
        `proxy-${i}  gce       Provisioning  配额不足：区域 asia-east1 的 CPU 已用完 🚫 e\u0301chec ${'重试'.repeat(i * 3)}`,
    ),
    `error from the backend:\nline two\r\x1b[2Jcleared?\x07 ${footer}`,
  ];

  for (const width of [12, 31, 57, 80, 200]) {
    it(`redraws wide characters, emoji and combining marks in place at ${width} columns`, () => {
      const screen = new Screen(width);
      screen.write('up: started\n');
      const t = new LiveTable((s) => screen.write(s));
      for (const [n, footer] of [
        [1, 'a'],
        [3, 'bb'],
        [2, 'ccc'],
      ] as const) {
        const lines = worldly(n, footer);
        t.draw(lines, width);
        // One row per line, nothing wrapped, nothing stale, no control character on screen.
        expect(screen.lines()).toEqual(['up: started', ...lines.map((l) => fitLine(l, width))]);
        expect(screen.wrapped()).toBe(false);
        for (const l of screen.lines()) expect(l).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
      }
    });
  }

  it('counts columns as a terminal draws them', () => {
    expect(columnsOf('abc')).toBe(3);
    expect(columnsOf('配额')).toBe(4);
    expect(columnsOf('🚫')).toBe(2);
    expect(columnsOf('e\u0301')).toBe(1);
    expect(fitLine('配额不足', 6)).toBe('配额…');
    expect(fitLine('a\nb\x1b[2J', undefined)).toBe('a b\ufffd[2J');
  });
});
