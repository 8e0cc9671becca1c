/**
 * Parses /proc/<pid>/stat (pure). The command name (field 2) is in parentheses and may itself
 * contain spaces and parentheses, so the fields after it are counted from the last ')'.
 */
export function parseProcStat(text: string): { state: string; startTime: string } | undefined {
  const close = text.lastIndexOf(')');
  if (close < 0) return undefined;
  const rest = text
    .slice(close + 1)
    .trim()
    .split(/\s+/);
  // rest[0] is field 3 (state); field 22 (starttime) is rest[19].
  const state = rest[0];
  const startTime = rest[19];
  if (!state || !startTime || !/^\d+$/.test(startTime)) return undefined;
  return { state, startTime };
}

/** Zombie and dead processes hold a pid but run nothing. */
export function isLiveState(state: string): boolean {
  return state !== 'Z' && state !== 'X' && state !== 'x';
}

/**
 * The listening sockets in a /proc/<pid>/net/tcp or tcp6 table (pure): local port and socket
 * inode of every row in state 0A (LISTEN).
 */
export function parseListeners(text: string): { port: number; inode: string }[] {
  const out: { port: number; inode: string }[] = [];
  for (const line of text.split('\n').slice(1)) {
    const f = line.trim().split(/\s+/);
    if (f.length < 10 || f[3] !== '0A') continue;
    const portHex = f[1]?.split(':')[1];
    const inode = f[9];
    if (!portHex || !inode) continue;
    out.push({ port: Number.parseInt(portHex, 16), inode });
  }
  return out;
}
