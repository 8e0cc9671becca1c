/**
 * node:net's isIP, fetched on use: an import of node:net loads node:stream with it, and the
 * package loads neither until it checks an address.
 */
export const isIP = (s: string): number => process.getBuiltinModule('node:net').isIP(s);
