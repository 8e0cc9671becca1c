import { readdir, readFile, stat } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { checkDocumentKeys } from '../api/document-keys.js';
import { API_VERSION, PROXY } from '../api/group.js';
import type { ProxyObject } from '../api/proxy.js';
import { ProxySpecError, validateProxySpec } from '../api/validate.js';
import { isPoolDocument, type PoolDocument, toPoolDocument } from '../pool/pool-documents.js';

const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/** One problem with one document: where it is and what is wrong, never the document's values. */
export interface DocumentIssue {
  file: string;
  /** The document's index in its file (0-based); absent when the whole file is unusable. */
  index?: number;
  /** The field path, as in the CRD (`spec.port`, `metadata.name`). */
  path: string;
  message: string;
}

/** A valid Proxy document and where it came from. */
export interface ProxyDocument {
  file: string;
  index: number;
  proxy: ProxyObject;
}

export interface LoadedDocuments {
  documents: ProxyDocument[];
  issues: DocumentIssue[];
  /** Files that could not be read or parsed at all: their Proxies keep their last good spec. */
  unreadable: string[];
  /** ProxyPool documents (their members are Proxies the pool controller adds). */
  pools?: PoolDocument[];
}

export const formatIssue = (i: DocumentIssue): string =>
  `${i.file}${i.index !== undefined ? `[${i.index}]` : ''}: ${i.path ? `${i.path}: ` : ''}${i.message}`;

/** The YAML files a path names: itself, or the `.yaml`/`.yml`/`.json` files of a directory (sorted, not recursive). */
export async function proxyFiles(path: string): Promise<string[]> {
  const st = await stat(path);
  if (!st.isDirectory()) return [path];
  const names = (await readdir(path)).filter((n) => ['.yaml', '.yml', '.json'].includes(extname(n)));
  return names.sort().map((n) => join(path, n));
}

/**
 * Loads Proxy documents from files and directories. Documents of another kind are skipped
 * silently only when they are a providers list (a YAML sequence); anything else that is not a
 * valid Proxy is an issue naming the file, document index and field, and the rest still load.
 */
export async function loadProxyDocuments(paths: readonly string[]): Promise<LoadedDocuments> {
  const out: LoadedDocuments = { documents: [], issues: [], unreadable: [] };
  const files: string[] = [];
  for (const p of paths) {
    try {
      files.push(...(await proxyFiles(p)));
    } catch (err) {
      out.issues.push({
        file: p,
        path: '',
        message: `cannot read: ${(err as NodeJS.ErrnoException).code ?? String(err)}`,
      });
      out.unreadable.push(p);
    }
  }
  const seen = new Map<string, string>();
  for (const file of files) {
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (err) {
      out.issues.push({
        file,
        path: '',
        message: `cannot read: ${(err as NodeJS.ErrnoException).code ?? String(err)}`,
      });
      out.unreadable.push(file);
      continue;
    }
    parseFile(file, text, out, seen);
  }
  return out;
}

export function parseFile(
  file: string,
  text: string,
  out: LoadedDocuments,
  seen = new Map<string, string>(),
): void {
  const docs = parseAllDocuments(text);
  const list = Array.isArray(docs) ? docs : [docs];
  if (list.some((d) => d.errors.length > 0)) {
    for (const [index, d] of list.entries()) {
      for (const e of d.errors)
        out.issues.push({ file, index, path: '', message: `YAML: ${e.message.split('\n')[0]}` });
    }
    out.unreadable.push(file);
    return;
  }
  for (const [index, d] of list.entries()) {
    const value = d.toJS() as unknown;
    if (value === null || value === undefined) continue;
    const issue = (path: string, message: string) => out.issues.push({ file, index, path, message });
    if (isPoolDocument(value)) {
      const pool = toPoolDocument(file, index, value as Record<string, unknown>, issue);
      if (pool) out.pools = [...(out.pools ?? []), pool];
      continue;
    }
    const proxy = toProxy(value, issue);
    if (!proxy) continue;
    const key = `${proxy.metadata.namespace}/${proxy.metadata.name}`;
    const prev = seen.get(key);
    if (prev) {
      issue('metadata.name', `Proxy ${key} is already defined in ${prev}`);
      continue;
    }
    seen.set(key, `${file}[${index}]`);
    out.documents.push({ file, index, proxy });
  }
}

function toProxy(value: unknown, issue: (path: string, message: string) => void): ProxyObject | undefined {
  if (typeof value !== 'object' || Array.isArray(value)) {
    issue('', 'a Proxy document must be a mapping (apiVersion, kind, metadata, spec)');
    return undefined;
  }
  const v = value as Record<string, unknown>;
  let ok = checkDocumentKeys(v, issue);
  if (v.apiVersion !== API_VERSION) {
    issue('apiVersion', `must be ${API_VERSION}, got ${JSON.stringify(v.apiVersion)}`);
    ok = false;
  }
  if (v.kind !== PROXY.kind) {
    issue('kind', `must be ${PROXY.kind}, got ${JSON.stringify(v.kind)}`);
    ok = false;
  }
  const meta = (v.metadata ?? {}) as Record<string, unknown>;
  const name = meta.name;
  if (typeof name !== 'string' || !DNS1123_SUBDOMAIN.test(name) || name.length > 253) {
    issue('metadata.name', `must be a DNS-1123 name, got ${JSON.stringify(name)}`);
    ok = false;
  }
  const namespace = meta.namespace ?? 'default';
  if (typeof namespace !== 'string' || !DNS1123_LABEL.test(namespace) || namespace.length > 63) {
    issue('metadata.namespace', `must be a DNS-1123 label, got ${JSON.stringify(namespace)}`);
    ok = false;
  }
  try {
    validateProxySpec(v.spec);
  } catch (err) {
    if (!ProxySpecError.isInstance(err)) throw err;
    for (const i of err.issues) issue(i.path, i.message);
    ok = false;
  }
  if (!ok) return undefined;
  const annotations = meta.annotations as Record<string, string> | undefined;
  const labels = meta.labels as Record<string, string> | undefined;
  return {
    apiVersion: API_VERSION,
    kind: PROXY.kind,
    metadata: {
      name: name as string,
      namespace: namespace as string,
      ...(annotations && typeof annotations === 'object' ? { annotations } : {}),
      ...(labels && typeof labels === 'object' ? { labels } : {}),
    },
    spec: v.spec as ProxyObject['spec'],
  };
}
