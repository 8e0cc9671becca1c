import { describe, expect, it } from 'vitest';
import { computeLayout, PRIMARY_ROOT } from './layout.js';

describe('computeLayout', () => {
  it('puts the primary root after the descriptors and path tables, then Joliet, continuation, data', () => {
    expect(PRIMARY_ROOT).toBe(23); // 16 PVD, 17 SVD, 18 terminator, 19-22 path tables
    const l = computeLayout([136, 102, 126], [34, 34, 52], [5000]);
    expect(l.primaryRoot).toEqual({ block: 23, size: 2048 });
    expect(l.jolietRoot).toEqual({ block: 24, size: 2048 });
    expect(l.continuation).toBe(25);
    expect(l.files).toEqual([{ block: 26, size: 5000 }]);
    expect(l.totalBlocks).toBe(29); // 5000 bytes take three blocks
    expect(l.primaryOffsets).toEqual([0, 136, 238]);
  });

  it('gives each file whole blocks, in order, and lets an empty file point at the next block', () => {
    const l = computeLayout([34, 34], [34, 34], [2048, 0, 2049, 1]);
    expect(l.files.map((f) => f.block)).toEqual([26, 27, 27, 29]);
    expect(l.totalBlocks).toBe(30);
  });

  it('adds one block when a trailing empty file would point past the end', () => {
    const l = computeLayout([34, 34], [34, 34], [10, 0]);
    expect(l.files).toEqual([
      { block: 26, size: 10 },
      { block: 27, size: 0 },
    ]);
    expect(l.totalBlocks).toBe(28);
    expect(computeLayout([34, 34], [34, 34], [10]).totalBlocks).toBe(27);
  });

  it('shifts everything after a directory that needs more than one block', () => {
    const l = computeLayout(Array(30).fill(100), Array(3).fill(34), [1]);
    expect(l.primaryRoot).toEqual({ block: 23, size: 4096 });
    expect(l.jolietRoot.block).toBe(25);
    expect(l.continuation).toBe(26);
    expect(l.files[0]!.block).toBe(27);
  });
});
