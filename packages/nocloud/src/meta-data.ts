import { describeValue, SeedInputError } from './errors.js';

export interface MetaDataInput {
  /** cloud-init's `instance-id`; use {@link instanceIdFor} to derive it from the proxy. */
  readonly instanceId: string;
  /** cloud-init's `local-hostname`: a DNS name (labels of letters, digits and '-'). */
  readonly hostname: string;
}

// Restricting both values to these characters keeps them plain YAML scalars with no escaping.
const INSTANCE_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,254}$/;
const LABEL = /^[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/;

/**
 * The NoCloud `meta-data` document. Values are double-quoted so YAML never reads an id such
 * as `12345` or `on` as a number or a boolean.
 */
export function metaData(input: MetaDataInput): string {
  if (typeof input !== 'object' || input === null) {
    throw new SeedInputError('metaData', `metaData input must be an object, got ${describeValue(input)}`);
  }
  const { instanceId, hostname } = input;
  if (typeof instanceId !== 'string' || !INSTANCE_ID.test(instanceId)) {
    throw new SeedInputError(
      'instanceId',
      typeof instanceId === 'string'
        ? `instanceId must be 1-255 characters of letters, digits, '.', '_' and '-', starting with a letter or digit, got ${JSON.stringify(instanceId.slice(0, 64))}`
        : `instanceId must be a string, got ${describeValue(instanceId)}`,
    );
  }
  if (typeof hostname !== 'string' || !isHostname(hostname)) {
    throw new SeedInputError(
      'hostname',
      typeof hostname === 'string'
        ? `hostname must be a DNS name (dot-separated labels of letters, digits and '-', at most 253 characters), got ${JSON.stringify(hostname.slice(0, 64))}`
        : `hostname must be a string, got ${describeValue(hostname)}`,
    );
  }
  return `instance-id: "${instanceId}"\nlocal-hostname: "${hostname}"\n`;
}

function isHostname(name: string): boolean {
  return name.length <= 253 && name.split('.').every((label) => LABEL.test(label));
}
