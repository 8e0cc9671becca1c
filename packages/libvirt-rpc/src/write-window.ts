/**
 * Counts bytes handed to a transport whose write callbacks have not fired yet. A producer
 * waits when `high` bytes are outstanding and resumes at `low`, so the queue is refilled
 * before it runs dry ('drain' only fires once it is empty, which idles the socket on a busy host).
 */
export class WriteWindow {
  private outstanding = 0;
  private waiter: { resolve: () => void; reject: (err: unknown) => void } | null = null;
  private failed: { error: unknown } | null = null;

  constructor(
    private readonly high: number,
    private readonly low = Math.floor(high / 2),
  ) {}

  get bytes(): number {
    return this.outstanding;
  }

  get full(): boolean {
    return this.outstanding >= this.high;
  }

  add(n: number): void {
    this.outstanding += n;
  }

  done(n: number): void {
    this.outstanding -= n;
    if (this.waiter && this.outstanding <= this.low) {
      const w = this.waiter;
      this.waiter = null;
      w.resolve();
    }
  }

  /** Resolves once at most `low` bytes are outstanding; rejects after `fail()`. */
  wait(): Promise<void> {
    if (this.failed) return Promise.reject(this.failed.error);
    if (this.outstanding <= this.low) return Promise.resolve();
    return new Promise((resolve, reject) => {
      this.waiter = { resolve, reject };
    });
  }

  /** Ends every wait with `error` (connection closed, caller aborted). */
  fail(error: unknown): void {
    this.failed ??= { error };
    const w = this.waiter;
    this.waiter = null;
    w?.reject(error);
  }
}
