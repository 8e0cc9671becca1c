import { FLAG_DIRECTORY, MODE_DIRECTORY, MODE_FILE } from './constants.js';
import type { DirectoryRecord } from './directory-record.js';
import type { Layout } from './layout.js';
import { compareLevel1, jolietIdentifierBytes, level1Identifier, level1IdentifierBytes } from './names.js';
import {
  ceEntry,
  concat,
  nmEntry,
  pxEntry,
  RR_NM,
  RR_PX,
  RR_TF,
  rrEntry,
  spEntry,
  tfEntry,
} from './rock-ridge.js';
import type { SeedFile } from './seed-input.js';

const ROOT_LINKS = 2;
const FILE_LINKS = 1;
const DOT = Uint8Array.of(0);
const DOTDOT = Uint8Array.of(1);
const NO_SYSTEM_USE = new Uint8Array(0);
const utf8 = new TextEncoder();

/** The root record a volume descriptor embeds (34 bytes, no system use area). */
export function rootRecord(root: Layout['primaryRoot'], date: Date): DirectoryRecord {
  return {
    identifier: DOT,
    flags: FLAG_DIRECTORY,
    systemUse: NO_SYSTEM_USE,
    extent: root.block,
    size: root.size,
    date,
  };
}

/**
 * The primary root directory: `.`, `..` and the files sorted by their 8.3 identifiers, each
 * with Rock Ridge entries. `files` is in name order, and `layout.files` aligns with it.
 */
export function primaryRecords(
  files: readonly SeedFile[],
  layout: Layout,
  date: Date,
  erLength: number,
): DirectoryRecord[] {
  const tf = tfEntry(date);
  const dirPx = pxEntry(MODE_DIRECTORY, ROOT_LINKS);
  const root = layout.primaryRoot;
  const records: DirectoryRecord[] = [
    {
      identifier: DOT,
      flags: FLAG_DIRECTORY,
      // SP must come first in the root's `.` record; CE leads to the ER entry.
      systemUse: concat([
        spEntry(),
        rrEntry(RR_PX | RR_TF),
        dirPx,
        tf,
        ceEntry(layout.continuation, 0, erLength),
      ]),
      extent: root.block,
      size: root.size,
      date,
    },
    {
      identifier: DOTDOT,
      flags: FLAG_DIRECTORY,
      systemUse: concat([rrEntry(RR_PX | RR_TF), dirPx, tf]),
      extent: root.block,
      size: root.size,
      date,
    },
  ];
  const filePx = pxEntry(MODE_FILE, FILE_LINKS);
  const order = files
    .map((_, i) => i)
    .sort((a, b) => compareLevel1(level1Identifier(files[a]!.name), level1Identifier(files[b]!.name)));
  for (const i of order) {
    const { name } = files[i]!;
    const extent = layout.files[i]!;
    records.push({
      identifier: level1IdentifierBytes(name),
      flags: 0,
      systemUse: concat([rrEntry(RR_PX | RR_TF | RR_NM), nmEntry(utf8.encode(name)), filePx, tf]),
      extent: extent.block,
      size: extent.size,
      date,
    });
  }
  return records;
}

/** The Joliet root directory: `.`, `..` and the files by name (already in UCS-2 order). */
export function jolietRecords(files: readonly SeedFile[], layout: Layout, date: Date): DirectoryRecord[] {
  const root = layout.jolietRoot;
  const records: DirectoryRecord[] = [
    {
      identifier: DOT,
      flags: FLAG_DIRECTORY,
      systemUse: NO_SYSTEM_USE,
      extent: root.block,
      size: root.size,
      date,
    },
    {
      identifier: DOTDOT,
      flags: FLAG_DIRECTORY,
      systemUse: NO_SYSTEM_USE,
      extent: root.block,
      size: root.size,
      date,
    },
  ];
  files.forEach((file, i) => {
    const extent = layout.files[i]!;
    records.push({
      identifier: jolietIdentifierBytes(file.name),
      flags: 0,
      systemUse: NO_SYSTEM_USE,
      extent: extent.block,
      size: extent.size,
      date,
    });
  });
  return records;
}
