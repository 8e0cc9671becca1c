import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  isProviderFactory,
  type Logger,
  type ProviderBundle,
  type ProviderFactory,
  type ProviderFactoryContext,
  type ProviderTypeSource,
} from '@egress-proxies/contract';
import {
  createChecked,
  type ProviderEntry,
  type ProviderRegistry,
  ProvidersConfigError,
} from '@egress-proxies/provider-utils';
import {
  loadProvidersConfig,
  parseProvidersDocument,
  providerTypesIn,
  validateProviderBlock,
} from '@egress-proxies/provider-utils/providers-file';
import { BUNDLED_PROVIDERS, type FactoryImport } from './bundled.js';
import { resolveModuleIn } from './module-resolve.js';
import { ProviderModuleError } from './provider-module-error.js';
import { ProviderSet } from './provider-set.js';

// This file's directory in both builds (CJS has __dirname; ESM has import.meta.url).
const OWN_DIR = typeof __dirname === 'string' ? __dirname : dirname(fileURLToPath(import.meta.url));

export interface ProviderLoaderOptions {
  /** Names the providers file in errors. */
  source: string;
  /** Factories an embedder supplies, by type; when given, no bundled package is imported. */
  registry?: ProviderRegistry;
  /** Bundled imports by type (the operator's own set unless replaced). */
  bundled?: Readonly<Record<string, FactoryImport>>;
  /**
   * Where `module:` names resolve first (a directory with a node_modules, or holding the files
   * a relative path names); then the operator's own install. Relative paths without it resolve
   * against the current directory.
   */
  modulesDir?: string;
  /** Imports a resolved module; `import()` unless a test replaces it. */
  importModule?: (url: string) => Promise<Record<string, unknown>>;
}

/** What `prepare` returns: the usable entries, and one error per entry whose module failed. */
export interface PreparedProviders {
  entries: ProviderEntry[];
  failures: ProviderModuleError[];
}

function factoriesIn(mod: Record<string, unknown>): ProviderFactory[] {
  const found: ProviderFactory[] = [];
  const consider = (v: unknown) => {
    if (isProviderFactory(v) && !found.includes(v)) found.push(v);
  };
  for (const value of Object.values(mod)) consider(value);
  const def = mod.default;
  if (def && typeof def === 'object' && !isProviderFactory(def))
    for (const v of Object.values(def)) consider(v);
  return found;
}

/**
 * Finds the factory for each configured entry: an embedder's registry, a bundled package
 * imported on first use, or the entry's `module:`. It is the type source the providers-file
 * loader checks entries against: the types it serves are those of the registry and the bundled
 * packages, and each block is validated with its factory's schema.
 */
export class ProviderLoader implements ProviderTypeSource {
  readonly #bundled: Readonly<Record<string, FactoryImport>>;
  readonly #byType = new Map<string, ProviderFactory>();
  readonly #byModule = new Map<string, Promise<ProviderFactory[]>>();
  readonly #entryFactory = new Map<string, ProviderFactory>();

  constructor(private readonly opts: ProviderLoaderOptions) {
    this.#bundled = opts.registry ? {} : (opts.bundled ?? BUNDLED_PROVIDERS);
  }

  /**
   * Loads a providers config (text, bytes or a parsed value): imports the bundled packages its
   * entries name (only those), then checks every entry, each block with its factory's schema.
   * Entries naming a `module` keep their raw block until `prepare` imports the module.
   */
  async loadConfig(input: unknown, options: { signal?: AbortSignal } = {}): Promise<ProviderEntry[]> {
    const source = this.opts.source;
    const doc = parseProvidersDocument(input, { source });
    for (const type of providerTypesIn(doc)) {
      options.signal?.throwIfAborted();
      await this.#forType(type);
    }
    return loadProvidersConfig(doc, { source, registry: this });
  }

  /** The factory serving `type` once imported (an embedder's, or a bundled one already loaded). */
  factory(type: string): ProviderFactory | undefined {
    return this.opts.registry?.factory(type) ?? this.#byType.get(type);
  }

  /**
   * Imports what `entries` need and checks module entries' blocks. A type no factory serves is
   * a ProvidersConfigError for the whole config (as a config mistake is); a module that cannot
   * be used only drops its entry, reported in `failures`.
   */
  async prepare(entries: readonly ProviderEntry[], signal?: AbortSignal): Promise<PreparedProviders> {
    const out: ProviderEntry[] = [];
    const failures: ProviderModuleError[] = [];
    const missing: { path: string; message: string }[] = [];
    for (const [index, entry] of entries.entries()) {
      signal?.throwIfAborted();
      if (entry.module !== undefined) {
        try {
          const factory = await this.#fromModule(entry, index);
          const config = validateProviderBlock(factory.configSchema, entry.config, {
            index,
            type: entry.type,
            source: this.opts.source,
          });
          this.#entryFactory.set(entry.name, factory);
          out.push({ ...entry, config });
        } catch (err) {
          if (!ProviderModuleError.isInstance(err)) throw err;
          failures.push(err);
        }
        continue;
      }
      const factory = await this.#forType(entry.type);
      if (!factory) {
        missing.push({
          path: `providers[${index}].type`,
          message: `type ${JSON.stringify(entry.type)} of provider ${JSON.stringify(entry.name)} is not bundled in this build (bundled: ${this.types().join(', ') || 'none'}; name a module: for another)`,
        });
        continue;
      }
      this.#entryFactory.set(entry.name, factory);
      out.push(entry);
    }
    if (missing.length > 0) throw new ProvidersConfigError(missing, { source: this.opts.source });
    return { entries: out, failures };
  }

  /** The embedder's registry, when one was given (the config loader learns its types). */
  get registry(): ProviderRegistry | undefined {
    return this.opts.registry;
  }

  /** The types served without a module. */
  types(): string[] {
    return [...new Set([...(this.opts.registry?.types() ?? []), ...Object.keys(this.#bundled)])];
  }

  /** Builds a prepared entry's provider (synchronously: its factory is already imported). */
  create(entry: ProviderEntry, context: ProviderFactoryContext): ProviderBundle {
    const factory = this.#entryFactory.get(entry.name);
    if (!factory) throw new Error(`provider ${JSON.stringify(entry.name)} was not prepared`);
    return createChecked(factory, entry.config, context);
  }

  /** A provider set whose entries are built through this loader. */
  providerSet(logger?: Logger): ProviderSet {
    return new ProviderSet(
      (entry) =>
        this.create(entry, {
          name: entry.name,
          ...(logger ? { logger: logger.child({ provider: entry.name }) } : {}),
        }),
      logger,
    );
  }

  async #forType(type: string): Promise<ProviderFactory | undefined> {
    const given = this.opts.registry?.factory(type);
    if (given) return given;
    const cached = this.#byType.get(type);
    if (cached) return cached;
    const load = Object.hasOwn(this.#bundled, type) ? this.#bundled[type] : undefined;
    if (!load) return undefined;
    const factory = await load();
    this.#byType.set(type, factory);
    return factory;
  }

  async #fromModule(entry: ProviderEntry, index: number): Promise<ProviderFactory> {
    const spec = entry.module as string;
    const at = { name: entry.name, type: entry.type, index };
    let url: string;
    try {
      url = this.#resolve(spec);
    } catch (err) {
      throw new ProviderModuleError(at, spec, `is not found (${(err as Error).message})`, { cause: err });
    }
    let pending = this.#byModule.get(url);
    if (!pending) {
      const importModule = this.opts.importModule ?? ((u: string) => import(u));
      pending = importModule(url).then(factoriesIn);
      this.#byModule.set(url, pending);
      // A failed import is not cached: a fixed install is picked up by the next reload.
      pending.catch(() => this.#byModule.delete(url));
    }
    let factories: ProviderFactory[];
    try {
      factories = await pending;
    } catch (err) {
      const notFound =
        (err as NodeJS.ErrnoException).code === 'ERR_MODULE_NOT_FOUND' &&
        String((err as Error).message).includes(spec);
      throw new ProviderModuleError(
        at,
        spec,
        `${notFound ? 'is not found' : 'threw on import'}: ${err instanceof Error ? err.message : String(err)}`,
        { cause: err },
      );
    }
    const factory = factories.find((f) => f.type === entry.type);
    if (!factory) {
      const offered = factories.map((f) => JSON.stringify(f.type)).join(', ');
      throw new ProviderModuleError(
        at,
        spec,
        `exports no provider factory for type ${JSON.stringify(entry.type)} (${offered ? `it exports factories for ${offered}` : 'it exports no factory at all'}; export one made with defineProviderFactory)`,
      );
    }
    return factory;
  }

  #resolve(spec: string): string {
    const dir = this.opts.modulesDir;
    if (dir) {
      const hit = resolveModuleIn(spec, dir);
      if (hit) return hit;
    }
    if (spec.startsWith('.') || spec.startsWith('/')) {
      const hit = resolveModuleIn(spec, process.cwd());
      if (hit) return hit;
      throw new Error(`no file ${spec}${dir ? ` under ${dir}` : ''}`);
    }
    // The operator's own install: node_modules from this file's directory upwards.
    const hit = resolveModuleIn(spec, OWN_DIR);
    if (hit) return hit;
    throw new Error(`no package ${spec} ${dir ? `under ${dir} nor ` : ''}in the operator's install`);
  }
}
