/** ECMA-119 logical sector and block size; every extent starts on a block boundary. */
export const BLOCK_SIZE = 2048;
/** Blocks 0-15 are the system area, left zero. */
export const SYSTEM_AREA_BLOCKS = 16;
/** The per-file cap. 16 MiB is far above any real cloud-init document. */
export const MAX_FILE_SIZE = 16 * 1024 * 1024;
/** The volume label cloud-init's NoCloud datasource looks for (through blkid's LABEL). */
export const VOLUME_ID = 'cidata';

/** ECMA-119 9.1.6 file flags. */
export const FLAG_DIRECTORY = 0x02;

/** POSIX modes for the Rock Ridge PX entries: read-only media, owned by root. */
export const MODE_FILE = 0o100444;
export const MODE_DIRECTORY = 0o040555;
