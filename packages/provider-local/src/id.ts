import { ErrorCode, permanentError } from '@egress-proxies/contract';

/** Every ID starts with this; the rest is the instance name. */
export const ID_PREFIX = 'local/';

/**
 * An instance name that is safe as a file name and a path segment: a DNS label. Everything
 * `instanceName()` produces matches.
 */
export const NAME_RE = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

export function isValidName(name: string): boolean {
  return NAME_RE.test(name);
}

/** `local/<name>`. */
export function formatId(name: string): string {
  return `${ID_PREFIX}${name}`;
}

/** The instance name in `id`; Permanent `INVALID_ID` naming the value when it does not parse. */
export function parseId(id: unknown): string {
  if (typeof id === 'string' && id.startsWith(ID_PREFIX)) {
    const name = id.slice(ID_PREFIX.length);
    if (isValidName(name)) return name;
  }
  throw permanentError(`${JSON.stringify(id)} is not a local provider ID (expected local/<instance name>)`, {
    code: ErrorCode.InvalidId,
  });
}
