import { BLOCK_SIZE, SYSTEM_AREA_BLOCKS } from './constants.js';
import { packRecords } from './directory-record.js';

// Fixed blocks after the system area; every table of a flat seed is far smaller than a block.
export const PRIMARY_DESCRIPTOR = SYSTEM_AREA_BLOCKS; // 16
export const JOLIET_DESCRIPTOR = PRIMARY_DESCRIPTOR + 1;
export const TERMINATOR = JOLIET_DESCRIPTOR + 1;
export const PATH_L = TERMINATOR + 1;
export const PATH_M = PATH_L + 1;
export const JOLIET_PATH_L = PATH_M + 1;
export const JOLIET_PATH_M = JOLIET_PATH_L + 1;
export const PRIMARY_ROOT = JOLIET_PATH_M + 1;

export interface Extent {
  readonly block: number;
  readonly size: number;
}

export interface Layout {
  readonly primaryRoot: Extent;
  readonly jolietRoot: Extent;
  /**
   * The Rock Ridge continuation block (holding ER). It follows both directories because
   * streaming readers such as libarchive only accept continuation areas ahead of where they are.
   */
  readonly continuation: number;
  /** Data extents, index-aligned with the name-ordered file list. */
  readonly files: readonly Extent[];
  /** Record offsets inside each directory, in record order. */
  readonly primaryOffsets: readonly number[];
  readonly jolietOffsets: readonly number[];
  readonly totalBlocks: number;
}

/** Extents of zero everywhere: record lengths, which do not depend on extents, are measured with it. */
export function placeholderLayout(fileCount: number): Layout {
  return {
    primaryRoot: { block: 0, size: 0 },
    jolietRoot: { block: 0, size: 0 },
    continuation: 0,
    files: Array.from({ length: fileCount }, () => ({ block: 0, size: 0 })),
    primaryOffsets: [],
    jolietOffsets: [],
    totalBlocks: 0,
  };
}

/**
 * Places everything: descriptors and path tables in fixed blocks, then the primary root,
 * the Joliet root, the continuation block and the file data in name order, each file on a
 * block boundary.
 */
export function computeLayout(
  primaryLengths: readonly number[],
  jolietLengths: readonly number[],
  fileSizes: readonly number[],
): Layout {
  const primary = packRecords(primaryLengths, BLOCK_SIZE);
  const joliet = packRecords(jolietLengths, BLOCK_SIZE);
  const jolietRoot = PRIMARY_ROOT + primary.blocks;
  const continuation = jolietRoot + joliet.blocks;
  let next = continuation + 1;
  const files: Extent[] = [];
  for (const size of fileSizes) {
    // An empty file takes no block; like cdrtools it points at the next free one.
    files.push({ block: next, size });
    next += Math.ceil(size / BLOCK_SIZE);
  }
  // When the last file is empty its extent is the block after the data: add one zero block
  // so no extent points outside the volume.
  const totalBlocks = files.some((e) => e.block >= next) ? next + 1 : next;
  return {
    primaryRoot: { block: PRIMARY_ROOT, size: primary.blocks * BLOCK_SIZE },
    jolietRoot: { block: jolietRoot, size: joliet.blocks * BLOCK_SIZE },
    continuation,
    files,
    primaryOffsets: primary.offsets,
    jolietOffsets: joliet.offsets,
    totalBlocks,
  };
}
