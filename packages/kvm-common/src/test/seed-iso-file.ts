/** ISO 9660 logical block size. */
const BLOCK = 2048;

function le32(image: Uint8Array, o: number): number {
  return (image[o]! | (image[o + 1]! << 8) | (image[o + 2]! << 16)) + image[o + 3]! * 2 ** 24;
}

/**
 * One file of a seed image's root directory, found by its ISO 9660 level-1 identifier (for
 * example `NETWORK_.;1` for `network-config`), or undefined. The harness reads what the fake
 * libvirt stored exactly as uploaded; NoCloud seeds are flat, so the root directory is enough.
 */
export function rootFileOfIso(image: Uint8Array, level1: string): Uint8Array | undefined {
  const pvd = 16 * BLOCK;
  // Type 1 and "CD001": the primary volume descriptor; anything else is not an ISO image.
  if (image.length < pvd + BLOCK || image[pvd] !== 1) return undefined;
  if (Buffer.from(image.subarray(pvd + 1, pvd + 6)).toString('latin1') !== 'CD001') return undefined;
  const root = pvd + 156;
  const start = le32(image, root + 2) * BLOCK;
  const end = start + le32(image, root + 10);
  for (let o = start; o < end && o < image.length; ) {
    const length = image[o]!;
    // A zero length byte ends this block's records; the next record starts on the next block.
    if (length === 0) {
      o = (Math.floor(o / BLOCK) + 1) * BLOCK;
      continue;
    }
    const idLength = image[o + 32]!;
    const id = Buffer.from(image.subarray(o + 33, o + 33 + idLength)).toString('latin1');
    if (id === level1) {
      const at = le32(image, o + 2) * BLOCK;
      return image.subarray(at, at + le32(image, o + 10));
    }
    o += length;
  }
  return undefined;
}
