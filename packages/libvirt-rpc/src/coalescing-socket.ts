import { Socket } from 'node:net';

type WriteCallback = (err?: Error | null) => void;

/**
 * Bytes gathered before a flush within one synchronous run. An upload can queue megabytes in a
 * single run of promise continuations; sending every 256 KiB keeps sshd busy meanwhile. In
 * same-run comparisons (1 GiB over SSH) 256 KiB gave 440-540 MiB/s, 64-128 KiB and no limit
 * 330-410 MiB/s, with the lowest CPU use on both ends.
 */
const FLUSH_BYTES = 256 * 1024;

/**
 * A TCP socket that gathers the writes made in one synchronous run into one writev per 256 KiB.
 * ssh2 writes each SSH packet as three buffers (length, ciphertext, tag) and a channel write
 * of 256 KiB as eight packets; with TCP_NODELAY each buffer would otherwise be its own
 * syscall and its own TCP segment, which both ends pay for.
 */
export class CoalescingSocket extends Socket {
  #corked = false;
  #gathered = 0;

  readonly #flush = (): void => {
    this.#corked = false;
    this.#gathered = 0;
    this.uncork();
  };

  // biome-ignore lint/suspicious/noExplicitAny: forwards every overload of net.Socket#connect.
  override connect(...args: any[]): this {
    super.connect(...(args as Parameters<Socket['connect']>));
    // connect() resets `write` to the base method as an own property (it undoes the
    // write-after-end guard that way); remove it so this class's write stays in effect.
    if (Object.hasOwn(this, 'write')) delete (this as { write?: unknown }).write;
    return this;
  }

  override write(
    chunk: Uint8Array | string,
    encodingOrCb?: BufferEncoding | WriteCallback,
    cb?: WriteCallback,
  ): boolean {
    if (!this.#corked) {
      this.#corked = true;
      this.cork();
      process.nextTick(this.#flush);
    }
    const ok = super.write(chunk, encodingOrCb as BufferEncoding, cb);
    this.#gathered += chunk.length;
    if (this.#gathered >= FLUSH_BYTES) {
      this.#gathered = 0;
      this.uncork();
      this.cork();
    }
    return ok;
  }
}
