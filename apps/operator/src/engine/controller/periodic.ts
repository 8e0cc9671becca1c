/**
 * Runs `fn` now and then every `intervalMs` until `signal` aborts; `trigger()` runs it early.
 * Runs never overlap: a trigger during a run causes one more run right after.
 */
export class Periodic {
  #timer?: NodeJS.Timeout;
  #running?: Promise<void>;
  #again = false;
  #stopped = false;

  constructor(
    private readonly fn: () => Promise<void>,
    private readonly intervalMs: number,
    private readonly onError: (err: unknown) => void = () => {},
  ) {}

  start(signal?: AbortSignal): void {
    signal?.addEventListener('abort', () => this.stop(), { once: true });
    this.trigger();
  }

  trigger(): Promise<void> {
    if (this.#stopped) return Promise.resolve();
    if (this.#running) {
      this.#again = true;
      return this.#running;
    }
    if (this.#timer) clearTimeout(this.#timer);
    this.#running = (async () => {
      do {
        this.#again = false;
        try {
          await this.fn();
        } catch (err) {
          this.onError(err);
        }
      } while (this.#again && !this.#stopped);
      this.#running = undefined;
      if (!this.#stopped) {
        this.#timer = setTimeout(() => void this.trigger(), this.intervalMs);
        this.#timer.unref();
      }
    })();
    return this.#running;
  }

  /** Stops scheduling; resolves when a run in progress is over. */
  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer) clearTimeout(this.#timer);
    await this.#running;
  }
}
