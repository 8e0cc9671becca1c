import { isIP } from 'node:net';
import * as z from 'zod';
import { formatValue } from './format-value.js';

/**
 * Field rules shared by the provider blocks. Each rule words its own message and names the bad
 * value; generic type and size messages come from the parse-level map in issue-message.ts.
 */

/**
 * Run a cross-field refinement even when a sibling field already failed, so one load reports
 * every problem; only a value that is not an object at all (already reported) skips it.
 */
export const ALWAYS = {
  when: (payload: { value: unknown }) => typeof payload.value === 'object' && payload.value !== null,
} as const;

export const nonEmptyString = () => z.string().min(1);

/** A string matching `re`, with a message that quotes the value and says what was expected. */
export function pattern(re: RegExp, what: string) {
  return z.string().regex(re, { error: (iss) => `${formatValue(iss.input)} is not a valid ${what}` });
}

/**
 * A catalogue key, host or node name that ends up in a volume name or a provider ID segment:
 * letters, digits, `.`, `_`, `-`, starting and ending with a letter or digit, at most 63.
 */
export const IDENTIFIER_RE = /^[A-Za-z0-9](?:[A-Za-z0-9._-]{0,61}[A-Za-z0-9])?$/;
export const identifier = (what = 'identifier') =>
  z.string().regex(IDENTIFIER_RE, {
    error: (iss) =>
      `${formatValue(iss.input)} is not a valid ${what} (letters, digits, ".", "_", "-"; starts and ends with a letter or digit; at most 63)`,
  });

/** A file path on the machine running the provider. */
export const filePath = () =>
  z
    .string()
    .min(1)
    .refine((s) => !s.includes('\u0000'), {
      error: (iss) => `${formatValue(iss.input)} contains a NUL byte`,
    });

/** An absolute path (a socket or binary location on a host). */
export const absolutePath = (what = 'absolute path') =>
  z.string().refine((s) => s.startsWith('/') && !s.includes('\u0000'), {
    error: (iss) => `${formatValue(iss.input)} is not an ${what}`,
  });

export const int = (min: number, max: number) => z.number().int().min(min).max(max);

export const port = () => int(1, 65535);

/** `host:port`, with an IPv6 literal in brackets (`[fd00::1]:22`). */
export const hostPort = () =>
  z.string().refine(
    (s) => {
      const m = /^(?:\[([0-9A-Fa-f:.]+)\]|([A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?)):(\d{1,5})$/.exec(s);
      if (!m) return false;
      if (m[1] !== undefined && isIP(m[1]) !== 6) return false;
      const p = Number(m[3]);
      return p >= 1 && p <= 65535;
    },
    {
      error: (iss) => `${formatValue(iss.input)} is not host:port (for example nas1.lan:22 or [fd00::1]:22)`,
    },
  );

function parseUrl(s: string): URL | undefined {
  try {
    return new URL(s);
  } catch {
    return undefined;
  }
}

/** An absolute URL whose scheme is one of `schemes`, without credentials in it. */
export function url(schemes: readonly ('http' | 'https')[]) {
  const list = schemes.map((s) => `${s}://`).join(' or ');
  return z.string().superRefine((s, ctx) => {
    const u = parseUrl(s);
    if (!u?.hostname) {
      ctx.addIssue({ code: 'custom', input: s, message: `${formatValue(s)} is not a valid URL` });
      return;
    }
    if (!schemes.includes(u.protocol.slice(0, -1) as 'http' | 'https')) {
      ctx.addIssue({ code: 'custom', input: s, message: `${formatValue(s)} must start with ${list}` });
      return;
    }
    // Credentials in a URL end up in logs; they belong in the files the config points at.
    if (u.username || u.password) {
      ctx.addIssue({
        code: 'custom',
        input: s,
        message: `URL must not carry credentials (user:password@); use the credential file instead`,
      });
    }
  });
}

export const sha256Hex = () =>
  z.string().regex(/^[0-9a-fA-F]{64}$/, {
    error: (iss) => `${formatValue(iss.input)} is not a sha256 digest (64 hex digits)`,
  });

export const ipAddress = () =>
  z.string().refine((s) => isIP(s) !== 0, {
    error: (iss) => `${formatValue(iss.input)} is not an IPv4 or IPv6 address`,
  });

/** True for `addr/prefix` with a prefix that fits the address family. */
export function isCidr(s: string): boolean {
  const slash = s.indexOf('/');
  if (slash < 0) return false;
  const family = isIP(s.slice(0, slash));
  const prefix = s.slice(slash + 1);
  if (family === 0 || !/^\d{1,3}$/.test(prefix)) return false;
  return Number(prefix) <= (family === 4 ? 32 : 128);
}

export const cidr = () =>
  z.string().refine(isCidr, {
    error: (iss) => `${formatValue(iss.input)} is not a CIDR (address/prefix, for example 10.0.0.0/8)`,
  });

/** A list of CIDRs: at least one, no duplicates. */
export const cidrList = () =>
  z
    .array(cidr())
    .min(1)
    .superRefine((list, ctx) => uniqueStrings(list, ctx, 'CIDR'), ALWAYS);

/** `{min, max}` inside [lo, hi] with min <= max; the message names both values. */
export function range(lo: number, hi: number) {
  return z.strictObject({ min: int(lo, hi), max: int(lo, hi) }).superRefine((r, ctx) => {
    if (typeof r.min === 'number' && typeof r.max === 'number' && r.min > r.max) {
      ctx.addIssue({ code: 'custom', input: r, message: `min ${r.min} must be <= max ${r.max}` });
    }
  }, ALWAYS);
}

/** Reports the second and later occurrence of a value, pointing back at the first. */
export function uniqueStrings(
  values: readonly unknown[],
  ctx: z.RefinementCtx,
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
    else {
      ctx.addIssue({
        code: 'custom',
        input: s,
        path: key ? [i, key] : [i],
        message: `duplicate ${what} ${formatValue(s)} (first at [${at}])`,
      });
    }
  });
}

/** A catalogue `{key: value}`: keys are identifiers, at least `min` entries. */
export function catalogue<V extends z.ZodType>(value: V, what: string, min = 0) {
  const rec = z.record(identifier(`${what} key`), value);
  return min > 0
    ? rec.refine((r) => Object.keys(r).length >= min, {
        error: () => `needs at least ${min} ${what} ${min === 1 ? 'entry' : 'entries'}, got none`,
      })
    : rec;
}

/** RFC 1123 label: Kubernetes namespaces and names, Proxmox-style DNS labels. */
export const DNS1123_LABEL_RE = /^[a-z0-9](?:[-a-z0-9]{0,61}[a-z0-9])?$/;
/** RFC 1123 subdomain: dot-separated labels, at most 253. */
export const DNS1123_SUBDOMAIN_RE =
  /^(?=.{1,253}$)[a-z0-9](?:[-a-z0-9]*[a-z0-9])?(?:\.[a-z0-9](?:[-a-z0-9]*[a-z0-9])?)*$/;

export const dns1123Label = (what: string) =>
  z.string().regex(DNS1123_LABEL_RE, {
    error: (iss) =>
      `${formatValue(iss.input)} is not a valid ${what} (lower-case letters, digits and "-", starts and ends alphanumeric, at most 63)`,
  });

export const dns1123Subdomain = (what: string) =>
  z.string().regex(DNS1123_SUBDOMAIN_RE, {
    error: (iss) =>
      `${formatValue(iss.input)} is not a valid ${what} (lower-case DNS subdomain, at most 253)`,
  });

/** A Linux network interface name (bridges): at most 15 characters, no "/", ":", "," or spaces. */
export const interfaceName = () =>
  z.string().regex(/^[A-Za-z0-9_][A-Za-z0-9_.-]{0,14}$/, {
    error: (iss) =>
      `${formatValue(iss.input)} is not a valid interface name (at most 15 of letters, digits, "_", ".", "-")`,
  });
