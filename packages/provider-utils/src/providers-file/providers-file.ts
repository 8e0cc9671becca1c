import type { ConfigSchema, ProviderTypeSource } from '@egress-proxies/contract';
import { LineCounter, parseDocument } from 'yaml';
import { closest, unknownKeyMessage } from '../config/did-you-mean.js';
import { formatPath, formatValue, typeName } from '../config/format-value.js';
import { type ConfigIssue, ProvidersConfigError } from '../config/providers-config-error.js';
import { validateWith } from '../config/validate-with.js';
import type { ProviderEntry } from '../registry.js';

/**
 * Provider names are used in every error and log line and as Kubernetes object names
 * (ProviderHealth), so they follow the DNS-1123 label rule.
 */
export const PROVIDER_NAME_RE = /^[a-z0-9](?:[-a-z0-9]{0,61}[a-z0-9])?$/;

const ROOT = 'providers';
const ENTRY_KEYS = ['name', 'type', 'module', 'createTimeout'] as const;

/** A duration as the operator's flags take it: `30m`, `1h30m`, `90s`, `500ms`. */
const DURATION_RE = /^(?:[0-9]+(?:ms|s|m|h))+$/;
const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** Milliseconds of a positive duration string; undefined when `text` is not one. */
function durationMs(text: unknown): number | undefined {
  if (typeof text !== 'string' || !DURATION_RE.test(text)) return undefined;
  let total = 0;
  for (const m of text.matchAll(/([0-9]+)(ms|s|m|h)/g))
    total += Number(m[1]) * (UNIT_MS[m[2] as string] ?? 0);
  return total > 0 ? total : undefined;
}

/**
 * Validates one entry's block with a schema (a factory's `configSchema`), issues at
 * `providers[index].<type>...`. The operator calls it for entries whose factory comes from a
 * `module`, once the module is imported. Without a schema the block is taken as written.
 */
export function validateProviderBlock(
  schema: ConfigSchema | undefined,
  block: unknown,
  at: { index: number; type: string; source?: string },
): unknown {
  if (!schema) return block ?? {};
  const r = validateWith(schema, block ?? {}, [ROOT, at.index, at.type]);
  if (!r.ok) throw new ProvidersConfigError(r.issues, at.source ? { source: at.source } : {});
  return r.value;
}

function validateEntry(
  raw: unknown,
  index: number,
  issues: ConfigIssue[],
  types: ProviderTypeSource,
): ProviderEntry | undefined {
  const at = (...rest: PropertyKey[]) => formatPath([ROOT, index, ...rest]);
  const known = types.types();
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

  // The operator's deadline for this provider's creates (a VM whose image download is slow
  // needs more than the default); a mistyped value must not silently become the default.
  let createTimeoutMs: number | undefined;
  if (entry.createTimeout !== undefined) {
    createTimeoutMs = durationMs(entry.createTimeout);
    if (createTimeoutMs === undefined) {
      fail(
        at('createTimeout'),
        `expected a positive duration such as 30m, 1h30m or 90s, got ${typeName(entry.createTimeout)} ${formatValue(entry.createTimeout)}`,
      );
    }
  }
  const timeout = createTimeoutMs !== undefined ? { createTimeoutMs } : {};

  const type = entry.type;
  let knownType: string | undefined;
  if (type === undefined) fail(at('type'), `required (one of ${known.join(', ')})`);
  else if (typeof type !== 'string')
    fail(at('type'), `expected string, got ${typeName(type)} ${formatValue(type)}`);
  else if (moduleName !== undefined || known.includes(type)) {
    // A module brings its own type; its name is also the block's key, so it is a label too.
    if (PROVIDER_NAME_RE.test(type)) knownType = type;
    else
      fail(
        at('type'),
        `${formatValue(type)} is not a valid provider type (lower-case letters, digits and "-")`,
      );
  } else {
    const guess = closest(type, known);
    fail(
      at('type'),
      `unknown type ${formatValue(type)}${guess ? ` (did you mean ${formatValue(guess)}?)` : ''} (known: ${known.join(', ') || 'none'}; a provider from another package names it with module:)`,
    );
  }

  for (const key of Object.keys(entry)) {
    if ((ENTRY_KEYS as readonly string[]).includes(key) || key === knownType) continue;
    if (known.includes(key)) {
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
  // A module's schema is known only once it is imported: its block is checked then.
  if (moduleName !== undefined) {
    return ok
      ? { name: name as string, type: knownType, config: block, module: moduleName, ...timeout }
      : undefined;
  }
  const schema = types.factory(knownType)?.configSchema;
  if (!schema) return ok ? { name: name as string, type: knownType, config: block, ...timeout } : undefined;
  const r = validateWith(schema, block, [ROOT, index, knownType]);
  if (!r.ok) {
    if (present) for (const i of r.issues) fail(i.path, i.message);
    else fail(at(knownType), `required (a ${knownType} entry carries a ${knownType}: block)`);
    return undefined;
  }
  return ok ? { name: name as string, type: knownType, config: r.value, ...timeout } : undefined;
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

/**
 * Reads a providers document: YAML or JSON text (JSON is YAML), bytes, or an already parsed
 * value, down to its list of entries (the root is a list, or `{providers: [...]}`). Throws a
 * `ProvidersConfigError` for a syntax error or a root of another shape.
 */
export function parseProvidersDocument(input: unknown, options: { source?: string } = {}): unknown[] {
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
  return root;
}

/**
 * The types a parsed document's entries name without a `module:` (what a loader that imports
 * factories on use must import before `loadProvidersConfig`).
 */
export function providerTypesIn(entries: readonly unknown[]): string[] {
  const out = new Set<string>();
  for (const e of entries) {
    const entry = e as { type?: unknown; module?: unknown } | null;
    if (typeof entry?.type === 'string' && entry.module === undefined) out.add(entry.type);
  }
  return [...out];
}

export interface LoadProvidersConfigOptions {
  /** Names the input in syntax messages and in the error's first line (a file name); `<input>` when absent. */
  source?: string;
  /**
   * The provider types an entry may name and their factories (a `ProviderRegistry` fits): each
   * block is checked with its factory's `configSchema`. An entry naming a `module` may have any
   * type; its block is checked once the module is imported (`validateProviderBlock`).
   */
  registry: ProviderTypeSource;
}

/**
 * Loads the providers config: YAML or JSON text, bytes, or an already parsed value. Each entry
 * is `{name, type, <type>: {...}}`, optionally with `module`. Returns the entries in file order
 * with every block's defaults filled, or throws a `ProvidersConfigError` listing every issue
 * found (not just the first).
 */
export function loadProvidersConfig(input: unknown, options: LoadProvidersConfigOptions): ProviderEntry[] {
  const source = options.source ?? '<input>';
  const root = parseProvidersDocument(input, { source });
  const issues: ConfigIssue[] = [];
  const entries: ProviderEntry[] = [];
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
    const entry = validateEntry(raw, index, issues, options.registry);
    if (entry) entries.push(entry);
  });
  if (issues.length > 0) throw new ProvidersConfigError(dedupe(issues), { source: options.source });
  return entries;
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
