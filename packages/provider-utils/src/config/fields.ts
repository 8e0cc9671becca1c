import { array } from '../schema/array.js';
import { object } from '../schema/object.js';
import { record } from '../schema/record.js';
import { int, type StringSchema, string } from '../schema/scalars.js';
import type { CheckContext, Schema } from '../schema/schema.js';
import { formatValue } from './format-value.js';

/** node:net's isIP, fetched on use: importing the package loads no networking module. */
const isIP = (s: string): number => process.getBuiltinModule('node:net').isIP(s);

/**
 * Field rules the provider blocks share. Each names the bad value and says what a valid one
 * looks like, in the one config-error format.
 */

export const nonEmptyString = (): StringSchema => string().min(1);

/** A string matching `re`: `"x" is not a valid <what>`. */
export const pattern = (re: RegExp, what: string): Schema<string> => string().pattern(re, what);

/**
 * A catalogue key, host or node name that ends up in a volume name or a provider ID segment:
 * letters, digits, `.`, `_`, `-`, starting and ending with a letter or digit, at most 63.
 */
export const IDENTIFIER_RE = /^[A-Za-z0-9](?:[A-Za-z0-9._-]{0,61}[A-Za-z0-9])?$/;
export const identifier = (what = 'identifier'): Schema<string> =>
  string().pattern(
    IDENTIFIER_RE,
    `${what} (letters, digits, ".", "_", "-"; starts and ends with a letter or digit; at most 63)`,
  );

/** A file path on the machine running the provider. */
export const filePath = (): Schema<string> =>
  string()
    .min(1)
    .refine(
      (s) => !s.includes('\u0000'),
      (s) => `${formatValue(s)} contains a NUL byte`,
    );

/** An absolute path (a socket or binary location on a host). */
export const absolutePath = (what = 'absolute path'): Schema<string> =>
  string().refine(
    (s) => s.startsWith('/') && !s.includes('\u0000'),
    (s) => `${formatValue(s)} is not an ${what}`,
  );

export const port = (): Schema<number> => int(1, 65535);

const HOST_PORT_RE = /^(?:\[([0-9A-Fa-f:.]+)\]|([A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?)):(\d{1,5})$/;

/** `host:port`, with an IPv6 literal in brackets (`[fd00::1]:22`). */
export const hostPort = (): Schema<string> =>
  string().refine(
    (s) => {
      const m = HOST_PORT_RE.exec(s);
      if (!m) return false;
      if (m[1] !== undefined && isIP(m[1]) !== 6) return false;
      const p = Number(m[3]);
      return p >= 1 && p <= 65535;
    },
    (s) => `${formatValue(s)} is not host:port (for example nas1.lan:22 or [fd00::1]:22)`,
  );

function parseUrl(s: string): URL | undefined {
  try {
    return new URL(s);
  } catch {
    return undefined;
  }
}

/** An absolute URL whose scheme is one of `schemes`, without credentials in it. */
export function url(schemes: readonly ('http' | 'https')[]): Schema<string> {
  const list = schemes.map((s) => `${s}://`).join(' or ');
  return string().check((s, ctx) => {
    const u = parseUrl(s);
    if (!u?.hostname) return ctx.issue(`${formatValue(s)} is not a valid URL`);
    if (!schemes.includes(u.protocol.slice(0, -1) as 'http' | 'https')) {
      return ctx.issue(`${formatValue(s)} must start with ${list}`);
    }
    // Credentials in a URL end up in logs; they belong in the files the config points at.
    if (u.username || u.password) {
      ctx.issue('URL must not carry credentials (user:password@); use the credential file instead');
    }
  });
}

export const sha256Hex = (): Schema<string> =>
  string().refine(
    (s) => /^[0-9a-fA-F]{64}$/.test(s),
    (s) => `${formatValue(s)} is not a sha256 digest (64 hex digits)`,
  );

export const ipAddress = (): Schema<string> =>
  string().refine(
    (s) => isIP(s) !== 0,
    (s) => `${formatValue(s)} is not an IPv4 or IPv6 address`,
  );

/** True for `addr/prefix` with a prefix that fits the address family. */
export function isCidr(s: string): boolean {
  const slash = s.indexOf('/');
  if (slash < 0) return false;
  const family = isIP(s.slice(0, slash));
  const prefix = s.slice(slash + 1);
  if (family === 0 || !/^\d{1,3}$/.test(prefix)) return false;
  return Number(prefix) <= (family === 4 ? 32 : 128);
}

export const cidr = (): Schema<string> =>
  string().refine(isCidr, (s) => `${formatValue(s)} is not a CIDR (address/prefix, for example 10.0.0.0/8)`);

/** Reports the second and later occurrence of a value, pointing back at the first. */
export function uniqueStrings(
  values: readonly unknown[],
  ctx: CheckContext,
  what: string,
  key?: string,
): void {
  if (!Array.isArray(values)) return;
  const first = new Map<string, number>();
  values.forEach((v, i) => {
    const s = key ? (v as Record<string, unknown> | undefined)?.[key] : v;
    if (typeof s !== 'string') return;
    const at = first.get(s);
    if (at === undefined) first.set(s, i);
    else ctx.issue(`duplicate ${what} ${formatValue(s)} (first at [${at}])`, key ? [i, key] : [i]);
  });
}

/** A list of CIDRs: at least one, no duplicates. */
export const cidrList = (): Schema<string[]> =>
  array(cidr(), { min: 1 }).check((list, ctx) => uniqueStrings(list, ctx, 'CIDR'));

/** `{min, max}` inside [lo, hi] with min <= max; the message names both values. */
export function range(lo: number, hi: number): Schema<{ min: number; max: number }> {
  return object({ min: int(lo, hi), max: int(lo, hi) }).check((r, ctx) => {
    if (typeof r.min === 'number' && typeof r.max === 'number' && r.min > r.max) {
      ctx.issue(`min ${r.min} must be <= max ${r.max}`);
    }
  });
}

/** A catalogue `{key: value}`: keys are identifiers, at least `min` entries. */
export function catalogue<Out, In>(
  value: Schema<Out, In>,
  what: string,
  min = 0,
): Schema<Record<string, Out>, Record<string, In>> {
  const rec = record(identifier(`${what} key`), value);
  return min > 0
    ? rec.check((r, ctx) => {
        if (Object.keys(r).length < min) {
          ctx.issue(`needs at least ${min} ${what} ${min === 1 ? 'entry' : 'entries'}, got none`);
        }
      })
    : rec;
}

/** RFC 1123 label: Kubernetes namespaces and names, provider entry names. */
export const DNS1123_LABEL_RE = /^[a-z0-9](?:[-a-z0-9]{0,61}[a-z0-9])?$/;
/** RFC 1123 subdomain: dot-separated labels, at most 253. */
export const DNS1123_SUBDOMAIN_RE =
  /^(?=.{1,253}$)[a-z0-9](?:[-a-z0-9]*[a-z0-9])?(?:\.[a-z0-9](?:[-a-z0-9]*[a-z0-9])?)*$/;

export const dns1123Label = (what: string): Schema<string> =>
  string().pattern(
    DNS1123_LABEL_RE,
    `${what} (lower-case letters, digits and "-", starts and ends alphanumeric, at most 63)`,
  );

export const dns1123Subdomain = (what: string): Schema<string> =>
  string().pattern(DNS1123_SUBDOMAIN_RE, `${what} (lower-case DNS subdomain, at most 253)`);

/** A Linux network interface name (bridges): at most 15 characters, no "/", ":", "," or spaces. */
export const interfaceName = (): Schema<string> =>
  string().pattern(
    /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,14}$/,
    'interface name (at most 15 of letters, digits, "_", ".", "-")',
  );
