import { describe, expect, expectTypeOf, it } from 'vitest';
import * as s from './s.js';
import { type Infer, type InferInput, Schema, type SchemaIssue } from './schema.js';

/** The issues of a value that must fail. */
function issues(schema: Schema<unknown, unknown>, value: unknown): SchemaIssue[] {
  const r = schema.validate(value);
  if (r.ok) throw new Error(`accepted ${JSON.stringify(value)}`);
  return r.issues;
}

const host = s.object({
  name: s.string().min(1),
  port: s.int(1, 65535).default(22),
  user: s.string().optional(),
});

describe('types', () => {
  it('infers the output with defaults filled and the input with them optional', () => {
    type Out = Infer<typeof host>;
    type In = InferInput<typeof host>;
    expectTypeOf<Out>().toEqualTypeOf<{ name: string; port: number; user?: string | undefined }>();
    expectTypeOf<In>().toEqualTypeOf<{
      name: string;
      port?: number | undefined;
      user?: string | undefined;
    }>();
    const mode = s.enum(['kvm', 'qemu']);
    expectTypeOf<Infer<typeof mode>>().toEqualTypeOf<'kvm' | 'qemu'>();
    const list = s.array(host);
    expectTypeOf<Infer<typeof list>>().toEqualTypeOf<Out[]>();
    const table = s.record(s.string(), s.boolean());
    expectTypeOf<Infer<typeof table>>().toEqualTypeOf<Record<string, boolean>>();
  });
});

describe('scalars name the bad value and what was expected', () => {
  it('types', () => {
    expect(issues(s.string(), 5)).toEqual([{ path: [], message: 'expected string, got number 5' }]);
    expect(issues(s.number(), 'x')).toEqual([{ path: [], message: 'expected number, got string "x"' }]);
    expect(issues(s.number(), Number.NaN)[0]?.message).toBe('expected number, got number NaN');
    expect(issues(s.boolean(), 'yes')).toEqual([{ path: [], message: 'expected boolean, got string "yes"' }]);
    expect(issues(s.string(), undefined)).toEqual([{ path: [], message: 'required' }]);
    expect(issues(s.string(), null)[0]?.message).toBe('expected string, got null null');
    expect(issues(s.string(), { token: 'secret' })[0]?.message).toBe('expected string, got object {token}');
  });

  it('bounds', () => {
    expect(issues(s.int(100), 99)[0]?.message).toBe('must be >= 100, got 99');
    expect(issues(s.int(1, 4094), 4095)[0]?.message).toBe('must be <= 4094, got 4095');
    expect(issues(s.int(), 9000.5)[0]?.message).toBe('must be an integer, got 9000.5');
    expect(issues(s.number(0, 1), 1.5)[0]?.message).toBe('must be <= 1, got 1.5');
    expect(s.number(0, 1).validate(0.5)).toEqual({ ok: true, value: 0.5 });
    expect(issues(s.string().min(1), '')[0]?.message).toBe('must not be empty');
    expect(issues(s.string().min(3), 'ab')[0]?.message).toBe('must be at least 3 characters, got "ab"');
    expect(issues(s.string().max(2), 'abc')[0]?.message).toBe('must be at most 2 characters, got 3 ("abc")');
    expect(issues(s.string().pattern(/^a+$/, 'run of a'), 'b')[0]?.message).toBe(
      '"b" is not a valid run of a',
    );
  });

  it('enums', () => {
    expect(issues(s.enum(['kvm', 'qemu']), 'xen')[0]?.message).toBe(
      'must be one of "kvm", "qemu", got "xen"',
    );
    expect(issues(s.enum(['kvm', 'qemu']), undefined)[0]?.message).toBe('required');
    expect(s.enum(['kvm', 'qemu']).validate('qemu')).toEqual({ ok: true, value: 'qemu' });
  });

  it('refine stops at the first failed rule of one value', () => {
    const schema = s
      .string()
      .refine(
        (v) => v.startsWith('a'),
        (v) => `${v} does not start with a`,
      )
      .refine((v) => v.endsWith('z'), 'does not end with z');
    expect(issues(schema, 'bb')).toEqual([{ path: [], message: 'bb does not start with a' }]);
    expect(issues(schema, 'ab')).toEqual([{ path: [], message: 'does not end with z' }]);
    expect(schema.validate('az')).toEqual({ ok: true, value: 'az' });
  });
});

describe('objects', () => {
  it('fill defaults, keep shape order and leave absent optional keys absent', () => {
    const r = host.validate({ user: 'u', name: 'h' });
    expect(r).toEqual({ ok: true, value: { name: 'h', port: 22, user: 'u' } });
    expect(Object.keys((host.validate({ name: 'h' }) as { value: object }).value)).toEqual(['name', 'port']);
  });

  it('refuse an unknown key with a did-you-mean and the known keys', () => {
    expect(issues(host, { name: 'h', prot: 2 })).toEqual([
      { path: ['prot'], message: 'unknown key "prot" (did you mean "port"?) (known: name, port, user)' },
    ]);
    expect(issues(host, { name: 'h', zzzzzz: 1 })[0]?.message).toBe(
      'unknown key "zzzzzz" (known: name, port, user)',
    );
  });

  it('report every field, with its path', () => {
    expect(issues(s.array(host), [{ name: '', port: 0 }, 'x'])).toEqual([
      { path: [0, 'name'], message: 'must not be empty' },
      { path: [0, 'port'], message: 'must be >= 1, got 0' },
      { path: [1], message: 'expected object, got string "x"' },
    ]);
  });

  it('run a check on what parsed so far, even when a field failed', () => {
    const range = s
      .object({ min: s.int(0, 10), max: s.int(0, 10), note: s.string().default('n') })
      .check((r, ctx) => {
        if (r.min > r.max) ctx.issue(`min ${r.min} must be <= max ${r.max}`);
        if (r.note !== 'n') ctx.issue('note is not the default', ['note']);
      });
    expect(issues(range, { min: 5, max: 4 })).toEqual([{ path: [], message: 'min 5 must be <= max 4' }]);
    // max fails its own rule and the cross-field check still sees min and the raw max.
    expect(issues(range, { min: 9, max: -1 })).toEqual([
      { path: ['max'], message: 'must be >= 0, got -1' },
      { path: [], message: 'min 9 must be <= max -1' },
    ]);
    expect(issues(range, 'x')).toEqual([{ path: [], message: 'expected object, got string "x"' }]);
    expect(range.validate({ min: 1, max: 2 })).toEqual({ ok: true, value: { min: 1, max: 2, note: 'n' } });
  });
});

describe('arrays and records', () => {
  it('bound the length', () => {
    expect(issues(s.array(s.string(), { min: 1 }), [])[0]?.message).toBe('needs at least 1 entry, got 0');
    expect(issues(s.array(s.string(), { max: 2 }), ['a', 'b', 'c'])[0]?.message).toBe(
      'allows at most 2 entries, got 3',
    );
    expect(issues(s.array(s.string()), {})[0]?.message).toBe('expected array, got object {}');
  });

  it('check keys at the key and values below it', () => {
    const table = s.record(s.string().pattern(/^[a-z]+$/, 'key'), s.int(0));
    expect(issues(table, { ok: 1, 'B A': 2, neg: -1 })).toEqual([
      { path: ['B A'], message: 'invalid key "B A": "B A" is not a valid key' },
      { path: ['neg'], message: 'must be >= 0, got -1' },
    ]);
    expect(table.validate({ a: 1 })).toEqual({ ok: true, value: { a: 1 } });
  });
});

describe('defaults', () => {
  it('are copied for every parse, objects included', () => {
    const schema = s.object({
      list: s.array(s.string()).default(['a']),
      deep: s.unknown().default({ x: [1] }),
    });
    const a = schema.validate({});
    const b = schema.validate({});
    if (!a.ok || !b.ok) throw new Error('rejected');
    a.value.list.push('b');
    (a.value.deep as { x: number[] }).x.push(2);
    expect(b.value).toEqual({ list: ['a'], deep: { x: [1] } });
  });

  it('apply to undefined only; null is a wrong type', () => {
    const schema = s.int().default(3);
    expect(schema.validate(undefined)).toEqual({ ok: true, value: 3 });
    expect(issues(schema, null)[0]?.message).toBe('expected number, got null null');
  });
});

describe('Standard Schema', () => {
  it('validates through ~standard with paths and messages', () => {
    const std = host['~standard'];
    expect(std.version).toBe(1);
    expect(std.vendor).toBe('egress-proxies');
    expect(std.validate({ name: 'h' })).toEqual({ value: { name: 'h', port: 22 } });
    expect(std.validate({ name: 5 })).toEqual({
      issues: [{ path: ['name'], message: 'expected string, got number 5' }],
    });
  });

  it('transform maps a valid value and passes failures through', () => {
    const schema = s.string().transform((v) => v.length);
    expectTypeOf<Infer<typeof schema>>().toEqualTypeOf<number>();
    expect(schema.validate('abc')).toEqual({ ok: true, value: 3 });
    expect(issues(schema, 1)[0]?.message).toBe('expected string, got number 1');
  });

  it('is a Schema instance everywhere', () => {
    expect(host).toBeInstanceOf(Schema);
    expect(s.string().optional()).toBeInstanceOf(Schema);
  });
});
