import { MAX_FILE_SIZE } from './constants.js';
import { describeValue, SeedInputError, SeedTooLargeError } from './errors.js';

/** A seed file's content: strings are encoded as UTF-8, byte arrays are taken as they are. */
export type SeedContent = string | Uint8Array;

/** The files of a NoCloud seed. `vendorData` and `networkConfig` are written only when given. */
export interface SeedFiles {
  /** Becomes `user-data`. */
  readonly userData: SeedContent;
  /** Becomes `meta-data`; see {@link metaData} for the usual content. */
  readonly metaData: SeedContent;
  /** Becomes `vendor-data` when present (`undefined` or `null` leave it out). */
  readonly vendorData?: SeedContent | null;
  /** Becomes `network-config` when present (`undefined` or `null` leave it out). */
  readonly networkConfig?: SeedContent | null;
}

export interface SeedFile {
  /** The name as every reader should list it, e.g. `user-data`. */
  readonly name: string;
  readonly data: Uint8Array;
}

const FIELDS = [
  { field: 'userData', name: 'user-data', required: true },
  { field: 'metaData', name: 'meta-data', required: true },
  { field: 'vendorData', name: 'vendor-data', required: false },
  { field: 'networkConfig', name: 'network-config', required: false },
] as const;

const encoder = new TextEncoder();

/** Validates the seed and returns its files as bytes, ordered by name. */
export function seedFiles(seed: unknown): SeedFile[] {
  if (typeof seed !== 'object' || seed === null || Array.isArray(seed)) {
    throw new SeedInputError(
      'seed',
      `seed must be an object with userData and metaData, got ${describeValue(seed)}`,
    );
  }
  const record = seed as Record<string, unknown>;
  const files: SeedFile[] = [];
  for (const { field, name, required } of FIELDS) {
    const value = record[field];
    if (!required && (value === undefined || value === null)) continue;
    files.push({ name, data: toBytes(field, value) });
  }
  return files.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

function toBytes(field: string, value: unknown): Uint8Array {
  let bytes: Uint8Array;
  if (typeof value === 'string') {
    // A UTF-16 unit never encodes to less than one byte, so an over-long string is rejected
    // before spending time encoding it.
    if (value.length > MAX_FILE_SIZE) throw new SeedTooLargeError(field, value.length, MAX_FILE_SIZE, true);
    bytes = encoder.encode(value);
  } else if (value instanceof Uint8Array) {
    bytes = value;
  } else {
    throw new SeedInputError(field, `${field} must be a string or a Uint8Array, got ${describeValue(value)}`);
  }
  if (bytes.length > MAX_FILE_SIZE) throw new SeedTooLargeError(field, bytes.length, MAX_FILE_SIZE);
  return bytes;
}
