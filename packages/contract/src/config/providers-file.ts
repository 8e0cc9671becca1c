import { LineCounter, parseDocument } from 'yaml';
import type * as z from 'zod';
import type { ConfigSchema } from './config-schema.js';
import { DNS1123_LABEL_RE } from './fields.js';
import { formatPath, formatValue, typeName } from './format-value.js';
import { gcpConfigSchema } from './gcp.js';
import { issueMessage, UNKNOWN_KEYS_PREFIX } from './issue-message.js';
import { kubernetesConfigSchema } from './kubernetes.js';
import { kvm2ConfigSchema, kvmConfigSchema } from './kvm.js';
import { localConfigSchema } from './local.js';
import { type ConfigIssue, ProvidersConfigError } from './providers-config-error.js';
import { proxmoxConfigSchema } from './proxmox.js';

/**
 * Every provider type and the schema of its block. The known-type list, the registry's checks
 * and the error messages all derive from this map, so a type is added in one place.
 */
export const providerConfigSchemas = {
  kvm: kvmConfigSchema,
  kvm2: kvm2ConfigSchema,
  proxmox: proxmoxConfigSchema,
  gcp: gcpConfigSchema,
  kubernetes: kubernetesConfigSchema,
  local: localConfigSchema,
} as const;

export type ProviderType = keyof typeof providerConfigSchemas;

/** The known provider types, in `providerConfigSchemas` order. */
export const PROVIDER_TYPES: readonly ProviderType[] = Object.freeze(
  Object.keys(providerConfigSchemas) as ProviderType[],
);

/** The block type of each provider type, defaults filled. */
export type ProviderConfigs = { [T in ProviderType]: z.output<(typeof providerConfigSchemas)[T]> };

/**
 * One loaded entry: its name, its type and its block with defaults filled. `module` is the
 * package or path the entry's factory comes from, when the entry names one (a third-party
 * provider, or a bundled type replaced by another build).
 */
export type ProviderEntry =
  | {
      [T in ProviderType]: { name: string; type: T; config: ProviderConfigs[T]; module?: string };
    }[ProviderType]
  | ExternalProviderEntry;

/**
 * An entry of a type this package does not know: its block is what the type's factory schema
 * returned, or, for an entry naming a `module`, the raw block until the module's factory has
 * checked it (`validateProviderBlock`).
 */
export interface ExternalProviderEntry {
  name: string;
  type: string;
  config: unknown;
  module?: string;
}

/** Where the loader learns the schema of a type it does not know (a registry fits). */
export interface ProviderTypeSource {
  types(): readonly string[];
  factory(type: string): { readonly configSchema?: ConfigSchema | undefined } | undefined;
}

/** The entry for one type, e.g. `ProviderEntryOf<'kvm2'>`. */
export type ProviderEntryOf<T extends ProviderType> = Extract<ProviderEntry, { type: T }>;

/**
 * Narrows an entry to a bundled type's, with that type's config: `entry.type === 'kvm2'` alone
 * does not, since an entry of another package (with a `module`) may reuse a bundled type name.
 */
export function isEntryOf<T extends ProviderType>(
  entry: ProviderEntry | undefined,
  type: T,
): entry is ProviderEntryOf<T> {
  return entry?.type === type && entry.module === undefined;
}

export function isProviderType(value: unknown): value is ProviderType {
  return typeof value === 'string' && Object.hasOwn(providerConfigSchemas, value);
}

/**
 * Provider names are used in every error and log line and as Kubernetes object names
 * (ProviderHealth), so they follow the DNS-1123 label rule.
 */
export const PROVIDER_NAME_RE = DNS1123_LABEL_RE;

const ROOT = 'providers';
const ENTRY_KEYS = ['name', 'type', 'module'] as const;

function closest(word: string, candidates: readonly string[]): string | undefined {
  const lower = word.toLowerCase();
  const hit = candidates.find((c) => c.toLowerCase() === lower);
  if (hit) return hit;
  let best: string | undefined;
  let bestDist = 3;
  for (const c of candidates) {
    const d = editDistance(lower, c.toLowerCase());
    if (d < bestDist) {
      best = c;
      bestDist = d;
    }
  }
  return best;
}

function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0] as number;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = row[j] as number;
      row[j] = Math.min(
        (row[j] as number) + 1,
        (row[j - 1] as number) + 1,
        prev + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
      prev = tmp;
    }
  }
  return row[b.length] as number;
}

function unknownKeyMessage(key: string, known: readonly string[]): string {
  const guess = closest(key, known);
  return `unknown key ${formatValue(key)}${guess ? ` (did you mean ${formatValue(guess)}?)` : ''} (known: ${known.join(', ')})`;
}

/** Turns zod issues under `prefix` into config issues, one per unknown key. */
function toIssues(issues: readonly z.core.$ZodIssue[], prefix: readonly PropertyKey[]): ConfigIssue[] {
  const out: ConfigIssue[] = [];
  for (const issue of issues) {
    const path = [...prefix, ...issue.path];
    if (issue.code === 'unrecognized_keys' && issue.message.startsWith(UNKNOWN_KEYS_PREFIX)) {
      const known = issue.message.slice(UNKNOWN_KEYS_PREFIX.length).split(', ').filter(Boolean);
      for (const key of issue.keys)
        out.push({ path: formatPath([...path, key]), message: unknownKeyMessage(key, known) });
    } else {
      out.push({ path: formatPath(path), message: issue.message });
    }
  }
  return out;
}

function dedupe(issues: ConfigIssue[]): ConfigIssue[] {
  const seen = new Set<string>();
  return issues.filter((i) => {
    const k = `${i.path}\u0000${i.message}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

type BlockResult = { ok: true; value: unknown } | { ok: false; issues: ConfigIssue[] };

function isZod(schema: unknown): schema is z.ZodType {
  return typeof (schema as { safeParse?: unknown }).safeParse === 'function' && '_zod' in (schema as object);
}

function validateBlock(
  schema: ConfigSchema | z.ZodType | undefined,
  block: unknown,
  prefix: readonly PropertyKey[],
): BlockResult {
  // A factory without a schema takes its block as written.
  if (!schema) return { ok: true, value: block };
  if (isZod(schema)) {
    // zod schemas (ours and most authors') get the house messages: bad value, expectation, did-you-mean.
    const r = schema.safeParse(block, { reportInput: true, error: issueMessage });
    return r.success ? { ok: true, value: r.data } : { ok: false, issues: toIssues(r.error.issues, prefix) };
  }
  const r = schema['~standard'].validate(block);
  if (r instanceof Promise) {
    return {
      ok: false,
      issues: [
        {
          path: formatPath(prefix),
          message: 'the config schema validates asynchronously; it must be synchronous',
        },
      ],
    };
  }
  if (!r.issues) return { ok: true, value: r.value };
  return {
    ok: false,
    issues: r.issues.map((i) => ({
      path: formatPath([
        ...prefix,
        ...(i.path ?? []).map((seg) => (typeof seg === 'object' ? seg.key : seg)),
      ]),
      message: i.message,
    })),
  };
}

function schemaFor(
  type: string,
  source: ProviderTypeSource | undefined,
): ConfigSchema | z.ZodType | undefined {
  const own = source?.factory(type)?.configSchema;
  if (own) return own;
  return isProviderType(type) ? (providerConfigSchemas[type] as z.ZodType) : undefined;
}

/**
 * Validates one entry's block with a schema (a factory's `configSchema`), issues at
 * `providers[index].<type>...`. The operator calls it for entries whose factory comes from a
 * `module`, once the module is imported.
 */
export function validateProviderBlock(
  schema: ConfigSchema | undefined,
  block: unknown,
  at: { index: number; type: string; source?: string },
): unknown {
  const r = validateBlock(schema, block ?? {}, [ROOT, at.index, at.type]);
  if (!r.ok) throw new ProvidersConfigError(r.issues, at.source ? { source: at.source } : {});
  return r.value;
}

/**
 * Validates one provider block (what a provider factory receives) and fills its defaults.
 * Throws `ProvidersConfigError` with paths under `<type>.`, e.g. `kvm2.hosts[0].bridge`.
 */
export function parseProviderConfig<T extends ProviderType>(type: T, block: unknown): ProviderConfigs[T] {
  if (!isProviderType(type)) {
    throw new ProvidersConfigError([
      { path: 'type', message: `unknown type ${formatValue(type)} (known: ${PROVIDER_TYPES.join(', ')})` },
    ]);
  }
  const r = validateBlock(providerConfigSchemas[type] as z.ZodType, block ?? {}, [type]);
  if (!r.ok) throw new ProvidersConfigError(r.issues);
  return r.value as ProviderConfigs[T];
}

function validateEntry(
  raw: unknown,
  index: number,
  issues: ConfigIssue[],
  types: TypeSet,
): ProviderEntry | undefined {
  const at = (...rest: PropertyKey[]) => formatPath([ROOT, index, ...rest]);
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    issues.push({
      path: at(),
      message: `expected an entry {name, type, <type>: {...}}, got ${typeName(raw)} ${formatValue(raw)}`,
    });
    return undefined;
  }
  const entry = raw as Record<string, unknown>;
  let ok = true;
  const fail = (path: string, message: string) => {
    issues.push({ path, message });
    ok = false;
  };

  const name = entry.name;
  if (name === undefined) fail(at('name'), 'required');
  else if (typeof name !== 'string')
    fail(at('name'), `expected string, got ${typeName(name)} ${formatValue(name)}`);
  else if (!PROVIDER_NAME_RE.test(name)) {
    fail(
      at('name'),
      `${formatValue(name)} is not a valid provider name (lower-case letters, digits and "-", starts and ends alphanumeric, at most 63)`,
    );
  }

  const module = entry.module;
  let moduleName: string | undefined;
  if (module !== undefined) {
    if (typeof module !== 'string' || module.trim() === '') {
      fail(at('module'), `expected a package name or a path, got ${typeName(module)} ${formatValue(module)}`);
    } else moduleName = module;
  }

  const type = entry.type;
  let knownType: string | undefined;
  if (type === undefined) fail(at('type'), `required (one of ${types.known.join(', ')})`);
  else if (typeof type !== 'string')
    fail(at('type'), `expected string, got ${typeName(type)} ${formatValue(type)}`);
  else if (moduleName !== undefined || types.has(type)) {
    // A module brings its own type; its name is also the block's key, so it is a label too.
    if (PROVIDER_NAME_RE.test(type)) knownType = type;
    else
      fail(
        at('type'),
        `${formatValue(type)} is not a valid provider type (lower-case letters, digits and "-")`,
      );
  } else {
    const guess = closest(type, types.known);
    fail(
      at('type'),
      `unknown type ${formatValue(type)}${guess ? ` (did you mean ${formatValue(guess)}?)` : ''} (known: ${types.known.join(', ')}; a provider from another package names it with module:)`,
    );
  }

  for (const key of Object.keys(entry)) {
    if ((ENTRY_KEYS as readonly string[]).includes(key) || key === knownType) continue;
    if (types.has(key)) {
      // With an unknown type the block cannot be judged; the type issue already explains it.
      if (knownType) {
        fail(
          at(key),
          `block ${formatValue(key)} does not match type ${formatValue(knownType)} (a ${knownType} entry carries a ${knownType}: block)`,
        );
      }
    } else {
      fail(at(key), unknownKeyMessage(key, [...ENTRY_KEYS, knownType ?? '<type>']));
    }
  }

  if (!knownType) return undefined;
  const present = Object.hasOwn(entry, knownType);
  // A key with nothing under it (`kubernetes:`) is null in YAML: the same as an empty block.
  const block = present ? (entry[knownType] ?? {}) : {};
  const withModule = moduleName !== undefined ? { module: moduleName } : {};
  // A module's schema is known only once it is imported: its block is checked then.
  if (moduleName !== undefined) {
    return ok ? ({ name, type: knownType, config: block, ...withModule } as ProviderEntry) : undefined;
  }
  const r = validateBlock(types.schema(knownType), block, [ROOT, index, knownType]);
  if (!r.ok) {
    if (present) for (const i of r.issues) fail(i.path, i.message);
    else fail(at(knownType), `required (a ${knownType} entry carries a ${knownType}: block)`);
    return undefined;
  }
  return ok ? ({ name, type: knownType, config: r.value } as ProviderEntry) : undefined;
}

/** The types an entry may name: the bundled ones plus those of a registry. */
interface TypeSet {
  readonly known: readonly string[];
  has(type: string): boolean;
  schema(type: string): ConfigSchema | z.ZodType | undefined;
}

function typeSet(source: ProviderTypeSource | undefined): TypeSet {
  const known = [...new Set([...PROVIDER_TYPES, ...(source?.types() ?? [])])];
  return {
    known,
    has: (type) => known.includes(type),
    schema: (type) => schemaFor(type, source),
  };
}

function parseText(text: string, source: string): unknown {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { prettyErrors: false, uniqueKeys: true, lineCounter });
  if (doc.errors.length > 0) {
    throw new ProvidersConfigError(
      doc.errors.map((e) => {
        const { line, col } = lineCounter.linePos(e.pos[0]);
        return { path: `${source}:${line}:${col}`, message: `YAML syntax error: ${e.message}` };
      }),
      { source },
    );
  }
  try {
    return doc.toJS({ maxAliasCount: 100 });
  } catch (err) {
    throw new ProvidersConfigError(
      [{ path: source, message: `YAML error: ${err instanceof Error ? err.message : String(err)}` }],
      { source },
    );
  }
}

export interface LoadProvidersConfigOptions {
  /** Names the input in YAML syntax messages (a file name); defaults to `<input>`. */
  source?: string;
  /**
   * More types than the bundled ones, each block checked with its factory's `configSchema`
   * (a `ProviderRegistry` fits). An entry naming a `module` may have any type.
   */
  registry?: ProviderTypeSource;
}

/**
 * Loads the providers config: YAML or JSON text (JSON is YAML), or an already parsed value. The
 * root is a list of entries (or `{providers: [...]}`); each entry is `{name, type, <type>: {...}}`.
 * Returns the entries in file order with every block's defaults filled, or throws a
 * `ProvidersConfigError` listing every issue found (not just the first).
 */
export function loadProvidersConfig(
  input: string | unknown,
  options: LoadProvidersConfigOptions = {},
): ProviderEntry[] {
  const source = options.source ?? '<input>';
  let root: unknown;
  if (typeof input === 'string') root = parseText(input, source);
  else if (input instanceof Uint8Array) root = parseText(new TextDecoder().decode(input), source);
  else root = input;

  if (typeof root === 'object' && root !== null && !Array.isArray(root)) {
    const keys = Object.keys(root);
    const extra = keys.filter((k) => k !== ROOT);
    if (keys.includes(ROOT) && extra.length === 0) root = (root as Record<string, unknown>)[ROOT];
    else if (keys.includes(ROOT)) {
      throw new ProvidersConfigError(
        extra.map((k) => ({ path: formatPath([k]), message: unknownKeyMessage(k, [ROOT]) })),
        { source },
      );
    }
  }
  if (!Array.isArray(root)) {
    throw new ProvidersConfigError(
      [
        {
          path: ROOT,
          message: `expected a list of provider entries, got ${typeName(root)} ${formatValue(root)}${
            root === null || root === undefined ? ' (empty document)' : ''
          }`,
        },
      ],
      { source },
    );
  }

  const issues: ConfigIssue[] = [];
  const entries: ProviderEntry[] = [];
  const types = typeSet(options.registry);
  const firstByName = new Map<string, number>();
  root.forEach((raw, index) => {
    const name = (raw as { name?: unknown } | null)?.name;
    if (typeof name === 'string') {
      const first = firstByName.get(name);
      if (first === undefined) firstByName.set(name, index);
      else {
        issues.push({
          path: formatPath([ROOT, index, 'name']),
          message: `duplicate name ${formatValue(name)} (first at ${formatPath([ROOT, first])})`,
        });
      }
    }
    const entry = validateEntry(raw, index, issues, types);
    if (entry) entries.push(entry);
  });
  if (issues.length > 0) throw new ProvidersConfigError(dedupe(issues), { source: options.source });
  return entries;
}
