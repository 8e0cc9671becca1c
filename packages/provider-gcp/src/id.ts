import { ErrorCode, permanentError } from '@egress-proxies/contract';
import { RESOURCE_NAME_RE, ZONE_RE } from './names.js';

export { regionOf, ZONE_RE } from './names.js';

export interface InstanceRef {
  zone: string;
  name: string;
}

/** `zones/<zone>/instances/<name>`; the project comes from the config, not the ID. */
export function formatId(zone: string, name: string): string {
  return `zones/${zone}/instances/${name}`;
}

/**
 * Parses a provider ID. Anything but exactly `zones/<zone>/instances/<name>` with a valid zone
 * and GCE instance name is Permanent `INVALID_ID`: retrying with the same string cannot help.
 */
export function parseId(id: unknown): InstanceRef {
  if (typeof id !== 'string') {
    throw permanentError(`invalid provider ID ${JSON.stringify(id)}: not a string`, {
      code: ErrorCode.InvalidId,
    });
  }
  const parts = id.split('/');
  const [zones, zone, instances, name] = parts;
  if (parts.length !== 4 || zones !== 'zones' || instances !== 'instances' || !zone || !name) {
    throw permanentError(`invalid provider ID ${JSON.stringify(id)}: want zones/<zone>/instances/<name>`, {
      code: ErrorCode.InvalidId,
    });
  }
  if (!ZONE_RE.test(zone)) {
    throw permanentError(
      `invalid provider ID ${JSON.stringify(id)}: zone ${JSON.stringify(zone)} is not a zone name`,
      {
        code: ErrorCode.InvalidId,
      },
    );
  }
  if (!RESOURCE_NAME_RE.test(name)) {
    throw permanentError(
      `invalid provider ID ${JSON.stringify(id)}: ${JSON.stringify(name)} is not a GCE instance name`,
      { code: ErrorCode.InvalidId },
    );
  }
  return { zone, name };
}

/** The last segment of a resource URL or path (`.../zones/us-east1-b` -> `us-east1-b`). */
export function lastSegment(urlOrPath: string): string {
  const i = urlOrPath.lastIndexOf('/');
  return i < 0 ? urlOrPath : urlOrPath.slice(i + 1);
}
