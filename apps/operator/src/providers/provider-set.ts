import type { Checker, Logger } from '@egress-proxies/contract';
import type { ProviderEntry, ProviderRegistry } from '@egress-proxies/provider-utils';
import type { ProviderHandle } from '../domain/provider-handle.js';
import { credentialFiles, entryFingerprint } from './fingerprint.js';
import type { ProviderModuleError } from './provider-module-error.js';

/** A configured provider with its Checker, when it has one. */
export interface ProviderSlot extends ProviderHandle {
  checker?: Checker;
}

/** What a reload changed, by provider name. */
export interface ProviderDiff {
  added: string[];
  changed: string[];
  removed: string[];
}

/**
 * The live set of configured providers. `apply` swaps in a new config: unchanged entries keep
 * their provider (and its connections), changed ones are rebuilt, removed ones closed. Readers
 * always see a complete set; a config that fails to build leaves the old set in place.
 */
export class ProviderSet {
  #slots = new Map<string, ProviderSlot>();
  #failures = new Map<string, ProviderModuleError>();
  readonly #listeners = new Set<(diff: ProviderDiff) => void>();

  constructor(
    private readonly build: (entry: ProviderEntry) => {
      provider: ProviderSlot['provider'];
      checker?: Checker;
    },
    private readonly log?: Logger,
  ) {}

  /** A set built through `registry`, each provider logging through a child of `logger`. */
  static fromRegistry(registry: ProviderRegistry, logger?: Logger): ProviderSet {
    return new ProviderSet(
      (entry) =>
        registry.create(entry.type, entry.config, {
          name: entry.name,
          ...(logger ? { logger: logger.child({ provider: entry.name }) } : {}),
        }),
      logger,
    );
  }

  get(name: string): ProviderSlot | undefined {
    return this.#slots.get(name);
  }
  names(): string[] {
    return [...this.#slots.keys()];
  }
  slots(): ProviderSlot[] {
    return [...this.#slots.values()];
  }

  /**
   * The entries of the current config whose `module:` could not be used. They have no slot, but
   * their ProviderHealth says why, so the cause is where the user looks, not only in the log.
   */
  failures(): ProviderModuleError[] {
    return [...this.#failures.values()];
  }

  /** Replaces the load failures; a new or changed one is announced as `added` (for its health). */
  setFailures(failures: readonly ProviderModuleError[]): void {
    const next = new Map(failures.map((f) => [f.entry.name, f]));
    const added = [...next].filter(([name, f]) => this.#failures.get(name)?.message !== f.message);
    this.#failures = next;
    if (added.length === 0) return;
    const diff: ProviderDiff = { added: added.map(([name]) => name), changed: [], removed: [] };
    for (const fn of this.#listeners) fn(diff);
  }

  onChange(fn: (diff: ProviderDiff) => void): () => void {
    this.#listeners.add(fn);
    return () => this.#listeners.delete(fn);
  }

  /** Applies a loaded config; throws (leaving the set unchanged) when a provider cannot be built. */
  async apply(entries: readonly ProviderEntry[]): Promise<ProviderDiff> {
    const next = new Map<string, ProviderSlot>();
    const diff: ProviderDiff = { added: [], changed: [], removed: [] };
    const built: ProviderSlot[] = [];
    try {
      for (const entry of entries) {
        const fingerprint = entryFingerprint(entry);
        const old = this.#slots.get(entry.name);
        if (old && old.fingerprint === fingerprint) {
          // The create deadline is outside the fingerprint: a new one applies to the live handle.
          if (entry.createTimeoutMs !== undefined) old.createTimeoutMs = entry.createTimeoutMs;
          else delete old.createTimeoutMs;
          next.set(entry.name, old);
          continue;
        }
        const b = this.build(entry);
        const slot: ProviderSlot = {
          name: entry.name,
          type: entry.type,
          provider: b.provider,
          fingerprint,
          credentialFiles: credentialFiles(entry),
          ...(entry.createTimeoutMs !== undefined ? { createTimeoutMs: entry.createTimeoutMs } : {}),
          ...(b.checker ? { checker: b.checker } : {}),
        };
        built.push(slot);
        next.set(entry.name, slot);
        (old ? diff.changed : diff.added).push(entry.name);
      }
    } catch (err) {
      await Promise.allSettled(built.map((s) => s.provider.close?.()));
      throw err;
    }
    for (const [name, old] of this.#slots) {
      const kept = next.get(name);
      if (kept === old) continue;
      if (!kept) diff.removed.push(name);
      // In-flight calls on the old provider finish on their own; close releases what is idle.
      old.provider.close?.().catch((err: unknown) => {
        this.log?.log(1, 'closing a replaced provider failed', { provider: name, error: String(err) });
      });
    }
    this.#slots = next;
    if (diff.added.length || diff.changed.length || diff.removed.length) {
      for (const fn of this.#listeners) fn(diff);
    }
    return diff;
  }

  /** Adds ready-made handles (tests and embedders that build providers themselves). */
  async setHandles(slots: ProviderSlot[]): Promise<ProviderDiff> {
    const diff: ProviderDiff = { added: [], changed: [], removed: [] };
    const next = new Map<string, ProviderSlot>();
    for (const s of slots) {
      const old = this.#slots.get(s.name);
      next.set(s.name, s);
      if (!old) diff.added.push(s.name);
      else if (old.fingerprint !== s.fingerprint) diff.changed.push(s.name);
    }
    for (const name of this.#slots.keys()) if (!next.has(name)) diff.removed.push(name);
    this.#slots = next;
    for (const fn of this.#listeners) fn(diff);
    return diff;
  }

  async close(): Promise<void> {
    await Promise.allSettled(this.slots().map((s) => s.provider.close?.()));
    this.#slots.clear();
  }
}
