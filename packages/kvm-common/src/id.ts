import { ErrorCode, permanentError } from '@egress-proxies/contract';

/** `hosts/<host>/domains/<name>` */
export function formatProviderId(host: string, name: string): string {
  return `hosts/${host}/domains/${name}`;
}

/**
 * Parses a provider ID: exactly four segments, the literals `hosts` and `domains`, and a
 * non-empty host and name. Anything else is Permanent `INVALID_ID` naming the value.
 */
export function parseProviderId(id: unknown): { host: string; name: string } {
  const parts = typeof id === 'string' ? id.split('/') : [];
  if (parts.length !== 4 || parts[0] !== 'hosts' || parts[2] !== 'domains' || !parts[1] || !parts[3]) {
    throw permanentError(
      `malformed provider ID ${JSON.stringify(typeof id === 'string' ? id.slice(0, 200) : id)}: expected hosts/<host>/domains/<name>`,
      { code: ErrorCode.InvalidId },
    );
  }
  return { host: parts[1], name: parts[3] };
}

/** `hosts/<host>/volumes/<volume>`: the ID of a secondary resource from listSecondary. */
export function formatSecondaryId(host: string, volume: string): string {
  return `hosts/${host}/volumes/${volume}`;
}

export function parseSecondaryId(id: unknown): { host: string; volume: string } {
  const parts = typeof id === 'string' ? id.split('/') : [];
  if (parts.length !== 4 || parts[0] !== 'hosts' || parts[2] !== 'volumes' || !parts[1] || !parts[3]) {
    throw permanentError(
      `malformed secondary resource ID ${JSON.stringify(typeof id === 'string' ? id.slice(0, 200) : id)}: expected hosts/<host>/volumes/<volume>`,
      { code: ErrorCode.InvalidId },
    );
  }
  return { host: parts[1], volume: parts[3] };
}
