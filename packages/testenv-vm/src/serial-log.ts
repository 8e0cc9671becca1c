import { open } from 'node:fs/promises';

/** The last `lines` lines of a (possibly large, possibly missing) log file. */
export async function tailFile(path: string, lines = 40, maxBytes = 64 * 1024): Promise<string> {
  let fh: Awaited<ReturnType<typeof open>>;
  try {
    fh = await open(path, 'r');
  } catch {
    return '(no serial output yet)';
  }
  try {
    const { size } = await fh.stat();
    const start = Math.max(0, size - maxBytes);
    const buf = Buffer.alloc(size - start);
    await fh.read(buf, 0, buf.length, start);
    // Serial consoles emit CRs and terminal escapes; keep the tail readable in an error message.
    const text = buf
      .toString('utf8')
      .replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '')
      .replace(/\r/g, '');
    return text.split('\n').slice(-lines).join('\n');
  } finally {
    await fh.close();
  }
}
