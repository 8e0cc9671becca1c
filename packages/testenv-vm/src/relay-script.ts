/**
 * A tiny Node program QEMU runs for each guest connection to a forwarded address: its stdin and
 * stdout are the guest's TCP stream, which it splices onto a connection to a host loopback port.
 */
export const RELAY_SCRIPT = `'use strict';
const net = require('node:net');
const port = Number(process.argv[2]);
const up = net.connect(port, '127.0.0.1');
process.stdin.pipe(up);
up.on('data', (d) => process.stdout.write(d));
up.on('end', () => process.stdout.write('', () => process.exit(0)));
up.on('error', () => process.exit(1));
process.stdin.on('error', () => process.exit(1));
`;

/** Quotes one word for the GLib shell-style parser QEMU uses on the forward command. */
export function shellWord(word: string): string {
  return `'${word.replaceAll("'", "'\\''")}'`;
}
