import { ErrorCode, isInstanceName, permanentError } from '@egress-proxies/contract';

/** `hosts/<host>/domains/<name>`: the host is part of the ID because a domain lives on one host. */
export function formatId(host: string, name: string): string {
  return `hosts/${host}/domains/${name}`;
}

const ID = /^hosts\/([a-z0-9][a-z0-9-]{0,62})\/domains\/([^/]+)$/;

export function parseId(id: string): { host: string; name: string } {
  const m = typeof id === 'string' ? ID.exec(id) : null;
  if (!m || !isInstanceName(m[2]!)) {
    throw permanentError(
      `malformed instance ID ${JSON.stringify(id)}: want hosts/<host>/domains/<instance name>`,
      {
        code: ErrorCode.InvalidId,
      },
    );
  }
  return { host: m[1]!, name: m[2]! };
}

/** The ID of a secondary resource for `deleteSecondary`. */
export function formatVolumeId(host: string, volume: string): string {
  return `hosts/${host}/volumes/${volume}`;
}

const VOLUME_ID = /^hosts\/([a-z0-9][a-z0-9-]{0,62})\/volumes\/([A-Za-z0-9._-]+)$/;

export function parseVolumeId(id: string): { host: string; volume: string } {
  const m = typeof id === 'string' ? VOLUME_ID.exec(id) : null;
  if (!m) {
    throw permanentError(`malformed volume ID ${JSON.stringify(id)}: want hosts/<host>/volumes/<volume>`, {
      code: ErrorCode.InvalidId,
    });
  }
  return { host: m[1]!, volume: m[2]! };
}
