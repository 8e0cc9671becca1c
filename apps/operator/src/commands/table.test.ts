import { describe, expect, it } from 'vitest';
import type { Command, Io } from './command.js';
import { dispatch } from './dispatch.js';
import { FlagError } from './flag-error.js';
import { STANDALONE_OPTIONS } from './standalone-flags.js';
import { COMMANDS, overallUsage } from './table.js';

/** The flags a usage text documents: its lines that start with a flag (`  --x`, `  -f, --x`). */
const documented = (usage: string) =>
  [...usage.matchAll(/^\s+(?:-\w, )?--([a-z][a-z-]*)/gm)].map((m) => m[1]).sort();

function recorder() {
  let out = '';
  let err = '';
  const io: Io = {
    out: (t) => {
      out += t;
    },
    err: (t) => {
      err += t;
    },
    isTTY: false,
    interrupted: new Promise(() => {}),
  };
  return { io, out: () => out, err: () => err };
}

describe('the command table', () => {
  it.each(COMMANDS.map((c) => [c.name, c] as const))('%s: its help documents exactly its flags', (_, c) => {
    expect(documented(c.usage)).toEqual([...c.flags].sort());
    expect(c.usage.endsWith('\n')).toBe(true);
  });

  it('status and down document only flags the shared parser takes, fewer than up', () => {
    for (const name of ['status', 'down']) {
      const c = COMMANDS.find((x) => x.name === name) as Command;
      for (const f of c.flags) expect(Object.keys(STANDALONE_OPTIONS)).toContain(f);
      expect(c.flags.length).toBeLessThan(Object.keys(STANDALONE_OPTIONS).length);
    }
  });

  it('names every command once', () => {
    const words = COMMANDS.flatMap((c) => [c.name, ...(c.aliases ?? [])]);
    expect(new Set(words).size).toBe(words.length);
  });
});

describe('dispatch goes through the table', () => {
  // A command the real table does not have: only its entry makes it known.
  const calls: string[][] = [];
  const hello: Command = {
    name: 'hello',
    summary: 'say hello',
    usage: 'usage: egress-proxies hello [--loud]\n\n  --loud    shout\n',
    flags: ['loud'],
    async run(args, io) {
      calls.push(args);
      if (args.includes('--bad')) throw new FlagError('--bad: not a hello flag');
      if (args.includes('--boom')) throw new Error('the hello backend is down');
      io.out(args.includes('--loud') ? 'HELLO\n' : 'hello\n');
      return 0;
    },
  };
  const table = [...COMMANDS, hello];
  const usage = overallUsage(table);
  const run = async (...argv: string[]) => {
    const r = recorder();
    const code = await dispatch(argv, { commands: table, usage, io: () => r.io });
    return { code, out: r.out(), err: r.err() };
  };

  it('lists a new entry in the overall usage', async () => {
    const r = await run('help');
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^ {2}hello {13}say hello$/m);
  });

  it("prints the entry's own usage for --help, without running it", async () => {
    const before = calls.length;
    const r = await run('hello', '--loud', '--help');
    expect(r).toEqual({ code: 0, out: hello.usage, err: '' });
    expect(calls.length).toBe(before);
  });

  it('runs the entry with the words after its name', async () => {
    const r = await run('hello', '--loud');
    expect(r).toEqual({ code: 0, out: 'HELLO\n', err: '' });
    expect(calls.at(-1)).toEqual(['--loud']);
  });

  it('refuses an unknown command with the closest name', async () => {
    const r = await run('helo');
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/^unknown command "helo" \(did you mean hello\?\)\n\nusage: /);
    expect((await run('frobnicate')).err).toMatch(/^unknown command "frobnicate"\n\n/);
  });

  it('exits 2 for a flag mistake and 1 for a failure, as text or as a JSON record', async () => {
    expect(await run('hello', '--bad')).toEqual({
      code: 2,
      out: '',
      err: 'egress-proxies: --bad: not a hello flag\n',
    });
    expect((await run('hello', '--boom')).code).toBe(1);
    const json = await run('hello', '--boom', '--output', 'json');
    expect(JSON.parse(json.err)).toEqual({
      type: 'error',
      code: 'FAILED',
      message: 'the hello backend is down',
    });
  });
});
