import { BLOCK_SIZE, VOLUME_ID } from './constants.js';
import { type DirectoryRecord, recordLength, writeDirectoryRecord } from './directory-record.js';
import { describeValue, SeedInputError } from './errors.js';
import { checkDate, DEFAULT_DATE } from './iso-date.js';
import {
  computeLayout,
  JOLIET_DESCRIPTOR,
  JOLIET_PATH_L,
  JOLIET_PATH_M,
  PATH_L,
  PATH_M,
  PRIMARY_DESCRIPTOR,
  placeholderLayout,
  TERMINATOR,
} from './layout.js';
import { PATH_TABLE_SIZE, writeRootPathTable } from './path-table.js';
import { erEntry } from './rock-ridge.js';
import { type SeedFiles, seedFiles } from './seed-input.js';
import { jolietRecords, primaryRecords, rootRecord } from './trees.js';
import { writeTerminator, writeVolumeDescriptor } from './volume-descriptor.js';

export interface SeedIsoOptions {
  /**
   * Recorded as every creation, modification and file time. Defaults to the Unix epoch so
   * the same files always give the same bytes; pass a date to record a real build time.
   */
  readonly date?: Date;
}

/**
 * Builds a NoCloud seed: an ISO 9660 image labelled `cidata` holding `user-data`, `meta-data`
 * and, when given, `vendor-data` and `network-config`. Names read back exactly through Rock
 * Ridge (what Linux shows) and Joliet; the plain ISO 9660 tree carries 8.3 fallbacks. Both
 * trees point at the same file data. Pure: same input and date, same bytes; no I/O.
 */
export function buildSeedIso(seed: SeedFiles, options: SeedIsoOptions = {}): Uint8Array {
  if (typeof options !== 'object' || options === null) {
    throw new SeedInputError('options', `options must be an object, got ${describeValue(options)}`);
  }
  const files = seedFiles(seed);
  const date = options.date === undefined ? DEFAULT_DATE : checkDate(options.date, 'options.date');
  const er = erEntry();

  // Record lengths do not depend on where anything lands (CE has a fixed size), so measure
  // them with placeholder extents, lay out, then build the records for real.
  const draft = placeholderLayout(files.length);
  const layout = computeLayout(
    primaryRecords(files, draft, date, er.length).map(lengthOf),
    jolietRecords(files, draft, date).map(lengthOf),
    files.map((f) => f.data.length),
  );

  const image = new Uint8Array(layout.totalBlocks * BLOCK_SIZE);
  const at = (block: number) => block * BLOCK_SIZE;
  const common = {
    volumeId: VOLUME_ID,
    volumeBlocks: layout.totalBlocks,
    pathTableSize: PATH_TABLE_SIZE,
    date,
  };
  writeVolumeDescriptor(image, at(PRIMARY_DESCRIPTOR), 'primary', {
    ...common,
    pathTableL: PATH_L,
    pathTableM: PATH_M,
    root: rootRecord(layout.primaryRoot, date),
  });
  writeVolumeDescriptor(image, at(JOLIET_DESCRIPTOR), 'joliet', {
    ...common,
    pathTableL: JOLIET_PATH_L,
    pathTableM: JOLIET_PATH_M,
    root: rootRecord(layout.jolietRoot, date),
  });
  writeTerminator(image, at(TERMINATOR));
  writeRootPathTable(image, at(PATH_L), layout.primaryRoot.block, false);
  writeRootPathTable(image, at(PATH_M), layout.primaryRoot.block, true);
  writeRootPathTable(image, at(JOLIET_PATH_L), layout.jolietRoot.block, false);
  writeRootPathTable(image, at(JOLIET_PATH_M), layout.jolietRoot.block, true);
  image.set(er, at(layout.continuation));

  for (const [i, record] of primaryRecords(files, layout, date, er.length).entries()) {
    writeDirectoryRecord(image, at(layout.primaryRoot.block) + layout.primaryOffsets[i]!, record);
  }
  for (const [i, record] of jolietRecords(files, layout, date).entries()) {
    writeDirectoryRecord(image, at(layout.jolietRoot.block) + layout.jolietOffsets[i]!, record);
  }
  for (const [i, file] of files.entries()) image.set(file.data, at(layout.files[i]!.block));
  return image;
}

function lengthOf(record: DirectoryRecord): number {
  return recordLength(record.identifier.length, record.systemUse.length);
}
