import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { XdrError } from './errors.js';
import { XdrReader, XdrWriter } from './xdr.js';

function enc(f: (w: XdrWriter) => void, initial = 256): Buffer {
  const w = new XdrWriter(initial);
  f(w);
  return w.finish();
}

function roundTrip<T>(write: (w: XdrWriter) => void, read: (r: XdrReader) => T): { value: T; bytes: Buffer } {
  const bytes = Buffer.from(enc(write, 4));
  const r = new XdrReader(bytes);
  const value = read(r);
  r.expectEnd();
  return { value, bytes };
}

describe('XDR integers', () => {
  it('round-trips int, unsigned int, hyper and unsigned hyper over their whole ranges', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: -0x80000000, max: 0x7fffffff }),
        fc.integer({ min: 0, max: 0xffffffff }),
        fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }),
        fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }),
        (i, u, h, uh) => {
          const { value, bytes } = roundTrip(
            (w) => w.int(i).uint(u).hyper(h).uhyper(uh),
            (r) => [r.int(), r.uint(), r.hyper(), r.uhyper()],
          );
          expect(value).toEqual([i, u, h, uh]);
          expect(bytes.length).toBe(24);
        },
      ),
    );
  });

  it('encodes big-endian', () => {
    const b = enc((w) => w.int(-2).uint(0x01020304).uhyper(270553174016n));
    expect(b.toString('hex')).toBe('fffffffe' + '01020304' + '0000003efe39d000');
  });

  it('rejects out-of-range and non-integer values with a clear error', () => {
    expect(() => new XdrWriter().int(2 ** 31, 'flags')).toThrow(
      /flags: 2147483648 is not a 32-bit signed integer/,
    );
    expect(() => new XdrWriter().uint(-1, 'flags')).toThrow(XdrError);
    expect(() => new XdrWriter().uint(1.5)).toThrow(/1.5 is not a 32-bit unsigned integer/);
    expect(() => new XdrWriter().uhyper(-1n, 'offset')).toThrow(
      /offset: -1n is not a 64-bit unsigned integer/,
    );
    expect(() => new XdrWriter().uhyper(2n ** 64n)).toThrow(XdrError);
    expect(() => new XdrWriter().hyper(2n ** 63n)).toThrow(XdrError);
    expect(() => new XdrWriter().hyper(2 ** 60)).toThrow(/use a bigint/);
  });

  it('accepts safe-integer numbers for hypers', () => {
    const { value } = roundTrip(
      (w) => w.uhyper(1024 * 1024 * 64).hyper(-5),
      (r) => [r.uhyper(), r.hyper()],
    );
    expect(value).toEqual([67108864n, -5n]);
  });
});

describe('XDR bool, double', () => {
  it('round-trips bools and treats any non-zero as true', () => {
    const { value } = roundTrip(
      (w) => w.bool(true).bool(false).uint(7),
      (r) => [r.bool(), r.bool(), r.bool()],
    );
    expect(value).toEqual([true, false, true]);
    expect(() => new XdrWriter().bool(1 as unknown as boolean)).toThrow(/not a boolean/);
  });

  it('round-trips doubles', () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true }), (d) => {
        expect(
          roundTrip(
            (w) => w.double(d),
            (r) => r.double(),
          ).value,
        ).toBe(d);
      }),
    );
  });
});

describe('XDR strings', () => {
  it('round-trips any unicode string with 4-byte padding', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 50 }), (s) => {
        const { value, bytes } = roundTrip(
          (w) => w.string(s),
          (r) => r.string(),
        );
        expect(value).toBe(s);
        const n = Buffer.byteLength(s);
        expect(bytes.length).toBe(4 + n + ((4 - (n % 4)) % 4));
      }),
    );
  });

  it('matches the wire form of "qemu:///system"', () => {
    expect(enc((w) => w.string('qemu:///system')).toString('hex')).toBe(
      '0000000e71656d753a2f2f2f73797374656d0000',
    );
  });

  it('enforces the maximum when encoding and decoding', () => {
    expect(() => new XdrWriter().string('abcdef', 5, 'name')).toThrow(
      /name: string of 6 bytes exceeds the maximum of 5/,
    );
    const bytes = enc((w) => w.string('abcdef'));
    expect(() => new XdrReader(bytes).string(5)).toThrow(/string length 6 exceeds the maximum of 5/);
  });

  it('counts the maximum in UTF-8 bytes, not characters', () => {
    expect(() => new XdrWriter().string('ééé', 5)).toThrow(/6 bytes/);
  });

  it('rejects truncated data', () => {
    const bytes = enc((w) => w.string('abcdef'));
    expect(() => new XdrReader(bytes.subarray(0, 8)).string()).toThrow(/truncated/);
  });

  it('round-trips optional strings (flag then value)', () => {
    const { value, bytes } = roundTrip(
      (w) => w.optionalString(null).optionalString('x').optionalString(undefined),
      (r) => [r.optionalString(), r.optionalString(), r.optionalString()],
    );
    expect(value).toEqual([null, 'x', null]);
    expect(bytes.toString('hex')).toBe('00000000' + '00000001' + '00000001' + '78000000' + '00000000');
  });
});

describe('XDR optional values', () => {
  it('round-trips present and absent values of any type', () => {
    fc.assert(
      fc.property(fc.option(fc.integer({ min: 0, max: 0xffffffff }), { nil: null }), (v) => {
        const { value } = roundTrip(
          (w) => w.optional(v, (ww, x) => ww.uint(x)),
          (r) => r.optional((rr) => rr.uint()),
        );
        expect(value).toBe(v);
      }),
    );
  });
});

describe('XDR opaque', () => {
  it('round-trips fixed opaque without a length prefix', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 0, maxLength: 40 }), (bytes) => {
        const { value, bytes: enc } = roundTrip(
          (w) => w.fixedOpaque(bytes, bytes.length),
          (r) => r.fixedOpaque(bytes.length),
        );
        expect(Buffer.compare(value, Buffer.from(bytes))).toBe(0);
        expect(enc.length % 4).toBe(0);
        expect(enc.length - bytes.length).toBeLessThan(4);
      }),
    );
  });

  it('rejects a fixed opaque of the wrong size', () => {
    expect(() => new XdrWriter().fixedOpaque(new Uint8Array(15), 16, 'uuid')).toThrow(
      /uuid: expected exactly 16 bytes, got 15/,
    );
  });

  it('round-trips variable opaque and enforces its maximum', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (bytes) => {
        const { value } = roundTrip(
          (w) => w.varOpaque(bytes, 64),
          (r) => r.varOpaque(64),
        );
        expect(Buffer.compare(value, Buffer.from(bytes))).toBe(0);
      }),
    );
    expect(() => new XdrWriter().varOpaque(new Uint8Array(9), 8, 'blob')).toThrow(
      /blob: 9 bytes exceed the maximum of 8/,
    );
    const encoded = enc((w) => w.varOpaque(new Uint8Array(9), 9));
    expect(() => new XdrReader(encoded).varOpaque(8)).toThrow(/opaque length 9 exceeds the maximum of 8/);
  });

  it('pads with zero bytes', () => {
    expect(enc((w) => w.varOpaque(Uint8Array.of(0xff), 4)).toString('hex')).toBe('00000001ff000000');
  });
});

describe('XDR variable arrays', () => {
  it('round-trips arrays of structs', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ a: fc.string(), b: fc.integer({ min: -5, max: 5 }) }), { maxLength: 10 }),
        (items) => {
          const { value } = roundTrip(
            (w) => w.array(items, 10, (ww, x) => ww.string(x.a).int(x.b)),
            (r) => r.array(10, (rr) => ({ a: rr.string(), b: rr.int() })),
          );
          expect(value).toEqual(items);
        },
      ),
    );
  });

  it('enforces the maximum on both sides', () => {
    expect(() => new XdrWriter().array([1, 2, 3], 2, (w, v) => w.int(v), 'types')).toThrow(
      /types: 3 elements exceed the maximum of 2/,
    );
    const encoded = enc((w) => w.array([1, 2, 3], 3, (ww, v) => ww.int(v)));
    expect(() => new XdrReader(encoded).array(2, (r) => r.int())).toThrow(
      /array length 3 exceeds the maximum of 2/,
    );
  });

  it('rejects an element count the remaining bytes cannot hold', () => {
    const encoded = enc((w) => w.uint(1000));
    expect(() => new XdrReader(encoded).array(16384, (r) => r.int())).toThrow(/truncated/);
  });
});

describe('XdrReader.expectEnd', () => {
  it('reports trailing bytes', () => {
    const r = new XdrReader(Buffer.alloc(8));
    r.int();
    expect(() => r.expectEnd('reply')).toThrow(/4 unexpected trailing bytes after decoding reply/);
  });
});

describe('XdrWriter.uuidText', () => {
  it('writes canonical UUID text as 16 bytes and rejects anything else without writing', () => {
    const w = new XdrWriter();
    expect(w.uuidText('00112233-4455-6677-8899-AABBccddeeff')).toBe(true);
    expect(w.finish().toString('hex')).toBe('00112233445566778899aabbccddeeff');
    const w2 = new XdrWriter();
    expect(w2.uuidText('00112233-4455-6677-8899-aabbccddeefg')).toBe(false);
    expect(w2.uuidText('0011223344556677-8899-aabbccddeeff')).toBe(false);
    expect(w2.uuidText('short')).toBe(false);
    expect(w2.length).toBe(0);
  });
});
