import { createHash } from 'node:crypto';
import { type FSWatcher, watch } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import type { ProviderEntry } from '@egress-proxies/provider-utils';

export interface ConfigWatcherOptions {
  path: string;
  /** Called with each new valid config (content changed). */
  onConfig: (entries: ProviderEntry[]) => Promise<void> | void;
  /** Called when the file changed but cannot be used; the previous config stays. */
  onError: (err: unknown) => void;
  /** A poll as a safety net under fs.watch (which misses some volume updates); 10 s when absent. */
  pollMs?: number;
  signal?: AbortSignal;
  /** Loads and checks the file's text (the operator's provider loader: each block by its factory's schema). */
  load: (text: string) => Promise<ProviderEntry[]> | ProviderEntry[];
}

/**
 * Watches the providers config file. A mounted ConfigMap is updated by swapping a symlink in the
 * directory, so the directory is watched, and a content digest decides whether anything changed.
 */
export class ConfigWatcher {
  #digest = '';
  #watcher?: FSWatcher;
  #timer?: NodeJS.Timeout;
  #running: Promise<void> = Promise.resolve();
  #stopped = false;

  constructor(private readonly opts: ConfigWatcherOptions) {}

  /** Records the digest of the config the process started with, so it is not re-applied. */
  setInitial(text: string): void {
    this.#digest = digest(text);
  }

  start(): void {
    try {
      this.#watcher = watch(dirname(this.opts.path), { persistent: false }, (_e, file) => {
        if (!file || file === basename(this.opts.path) || file.startsWith('..')) this.check();
      });
      this.#watcher.on('error', () => {});
    } catch {
      // The poll below still notices changes.
    }
    this.#timer = setInterval(() => this.check(), this.opts.pollMs ?? 10_000);
    this.#timer.unref();
    this.opts.signal?.addEventListener('abort', () => this.stop(), { once: true });
  }

  /** Checks the file now; resolves when any resulting reload is done. */
  check(): Promise<void> {
    this.#running = this.#running.then(() => this.#check());
    return this.#running;
  }

  async #check(): Promise<void> {
    if (this.#stopped) return;
    let text: string;
    try {
      text = await readFile(this.opts.path, 'utf8');
    } catch (err) {
      // A file briefly missing during a symlink swap is not a config change.
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
      this.opts.onError(err);
      return;
    }
    const d = digest(text);
    if (d === this.#digest) return;
    this.#digest = d;
    let entries: ProviderEntry[];
    try {
      entries = await this.opts.load(text);
    } catch (err) {
      this.opts.onError(err);
      return;
    }
    try {
      await this.opts.onConfig(entries);
    } catch (err) {
      this.opts.onError(err);
    }
  }

  stop(): void {
    this.#stopped = true;
    this.#watcher?.close();
    if (this.#timer) clearInterval(this.#timer);
  }
}

function digest(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
