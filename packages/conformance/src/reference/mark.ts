/**
 * The ownership mark the reference provider writes into a domain's metadata: one element in the
 * provider's own namespace, so other tools' metadata on the same domain is never mistaken for it.
 */
// Stryker disable next-line StringLiteral: writer and reader share the constant, so the mark round-trips either way
export const MARK_NAMESPACE = 'https://egress-proxies.dev/xmlns/reference/v1';

export interface Mark {
  uid: string;
  createdAt?: Date;
  installation?: string;
  /** The egress addresses allocated from the plan, one per family: the record allocation reads back. */
  egress?: { ipv4?: string; ipv6?: string };
}

/** What a domain's metadata says about ownership. */
export type MarkReading = { kind: 'marked'; mark: Mark } | { kind: 'unmarked' } | { kind: 'unreadable' };

const escapeAttr = (s: string) =>
  s.replaceAll('&', '&amp;').replaceAll('"', '&quot;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
const unescapeAttr = (s: string) =>
  s.replaceAll('&quot;', '"').replaceAll('&lt;', '<').replaceAll('&gt;', '>').replaceAll('&amp;', '&');

export function formatMark(mark: Mark): string {
  const attrs = [`managed="true"`, `uid="${escapeAttr(mark.uid)}"`];
  if (mark.createdAt) attrs.push(`createdAt="${mark.createdAt.toISOString()}"`);
  if (mark.installation) attrs.push(`installation="${escapeAttr(mark.installation)}"`);
  if (mark.egress?.ipv4) attrs.push(`egress4="${mark.egress.ipv4}"`);
  if (mark.egress?.ipv6) attrs.push(`egress6="${mark.egress.ipv6}"`);
  return `<instance xmlns="${MARK_NAMESPACE}" ${attrs.join(' ')}/>`;
}

const ELEMENT = /^<instance xmlns="([^"]*)"((?:\s+[A-Za-z0-9]+="[^"]*")*)\s*\/>$/;
const ATTR = /([A-Za-z0-9]+)="([^"]*)"/g;

/** Reads a domain's metadata: no metadata (or another namespace) is unmarked; garbage is unreadable. */
export function readMark(metadata: string | undefined): MarkReading {
  // Metadata of only whitespace reads as unreadable: 2.1/2.2 treat it as no mark (refused, never listed).
  if (metadata === undefined) return { kind: 'unmarked' };
  const m = ELEMENT.exec(metadata.trim());
  if (!m) return { kind: 'unreadable' };
  if (m[1] !== MARK_NAMESPACE) return { kind: 'unmarked' };
  const attrs = new Map<string, string>();
  // The attribute group always matches, if only the empty string.
  for (const a of m[2]!.matchAll(ATTR)) attrs.set(a[1]!, unescapeAttr(a[2]!));
  if (attrs.get('managed') !== 'true') return { kind: 'unmarked' };
  const mark: Mark = {
    uid:
      attrs.get('uid') ??
      // Stryker disable next-line StringLiteral: every writer writes a uid
      '',
  };
  // An absent or garbled createdAt gives no createdAt rather than a wrong one.
  const created = new Date(attrs.get('createdAt') ?? Number.NaN);
  if (!Number.isNaN(created.getTime())) mark.createdAt = created;
  // Readers spread the installation only when it is set.
  mark.installation = attrs.get('installation');
  const ipv4 = attrs.get('egress4');
  const ipv6 = attrs.get('egress6');
  if (ipv4 || ipv6) mark.egress = { ...(ipv4 ? { ipv4 } : {}), ...(ipv6 ? { ipv6 } : {}) };
  return { kind: 'marked', mark };
}
