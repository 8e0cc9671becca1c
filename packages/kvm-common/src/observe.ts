import type { LogFields } from '@egress-proxies/contract';
import { loggerOf, traceFields, withSpan } from '@egress-proxies/provider-utils';
import type { Attributes, Tracer } from '@opentelemetry/api';
import { LibvirtError } from 'libvirt-rpc-ts/codes';
import { BACKEND_METHODS, type BackendCallOptions, type BackendMethod, type KvmBackend } from './backend.js';
import { stateName } from './state.js';

/** Where each seam method takes its options argument. */
export const OPTIONS_INDEX: Record<BackendMethod, number> = {
  connectGetLibVersion: 0,
  connectGetHostname: 0,
  connectListAllDomains: 0,
  domainLookupByName: 1,
  domainDefineXML: 1,
  domainCreate: 1,
  domainResume: 1,
  domainDestroy: 1,
  domainUndefineFlags: 2,
  domainGetState: 1,
  domainGetMetadata: 2,
  domainInterfaceAddresses: 2,
  storagePoolLookupByName: 1,
  storagePoolGetInfo: 1,
  storagePoolRefresh: 1,
  storagePoolListAllVolumes: 1,
  storageVolLookupByName: 2,
  storageVolCreateXML: 2,
  storageVolDelete: 1,
  storageVolGetPath: 1,
  storageVolGetInfo: 1,
  storageVolGetXMLDesc: 1,
  storageVolUpload: 3,
  storageVolDownload: 2,
};

export interface ObserveOptions {
  host: string;
  /** Span name prefix: `kvm2` gives `kvm2.DomainLookupByName`. */
  spanPrefix: string;
  tracer?: Tracer;
}

const pascal = (m: string) => m[0]!.toUpperCase() + m.slice(1);

interface Ids {
  domain?: string;
  pool?: string;
  volume?: string;
  source?: string;
}

function identifiers(method: BackendMethod, args: unknown[]): { ids: Ids; detail: LogFields } {
  const ids: Ids = {};
  const detail: LogFields = {};
  args.forEach((a, i) => {
    if (i === OPTIONS_INDEX[method]) return;
    if (typeof a === 'string') {
      if (method === 'domainLookupByName') ids.domain = a;
      else if (method === 'storagePoolLookupByName') ids.pool = a;
      else if (method === 'storageVolLookupByName') ids.volume = a;
      else if (method === 'domainDefineXML' || method === 'storageVolCreateXML') detail.xml = a;
      return;
    }
    if (typeof a === 'number') {
      if (method === 'domainInterfaceAddresses') ids.source = ['lease', 'agent', 'arp'][a] ?? String(a);
      if (method === 'domainUndefineFlags') detail.flags = a;
      return;
    }
    if (typeof a !== 'object' || a === null) return;
    const o = a as Record<string, unknown>;
    if ('key' in o && 'pool' in o) {
      ids.volume = String(o.name);
      ids.pool = String(o.pool);
    } else if ('id' in o && 'uuid' in o) ids.domain = String(o.name);
    else if ('uuid' in o) ids.pool = String(o.name);
  });
  return { ids: ids as Ids, detail };
}

/** Curated results: facts at V1, bulk (XML, addresses, names) at V2. */
function summarise(method: BackendMethod, result: unknown): { v1: LogFields; v2: LogFields } {
  switch (method) {
    case 'domainGetState': {
      const r = result as { state: number; reason: number };
      return { v1: { state: stateName(r.state), reason: r.reason }, v2: {} };
    }
    case 'storageVolGetPath':
      return { v1: { path: result }, v2: {} };
    case 'domainGetMetadata':
      return { v1: {}, v2: { metadata: result } };
    case 'storageVolGetXMLDesc':
      return { v1: {}, v2: { xml: result } };
    case 'connectListAllDomains':
    case 'storagePoolListAllVolumes': {
      const list = result as { name: string }[];
      return { v1: { count: list.length }, v2: { names: list.map((d) => d.name) } };
    }
    case 'domainInterfaceAddresses': {
      const ifs = result as { addrs: { addr: string }[] }[];
      return {
        v1: { interfaces: ifs.length },
        v2: { addresses: ifs.flatMap((i) => i.addrs.map((a) => a.addr)) },
      };
    }
    case 'connectGetLibVersion':
      return { v1: { libvirtVersion: result }, v2: {} };
    case 'storagePoolGetInfo': {
      const r = result as { state: number; capacity: bigint; available: bigint };
      return {
        v1: { poolState: r.state },
        v2: { capacity: String(r.capacity), available: String(r.available) },
      };
    }
    default:
      return { v1: {}, v2: {} };
  }
}

/**
 * The one decorator: every seam call gets a span `<prefix>.<Method>` under the caller's active
 * span and one `libvirt call` line at V1 (identifiers, duration, error fields), with XML,
 * metadata and addresses only at V2. Upload bodies are never logged, only their length.
 */
export function observeBackend(inner: KvmBackend, options: ObserveOptions): KvmBackend {
  const p = options.spanPrefix;
  const wrapped: Record<string, unknown> = {};
  for (const method of BACKEND_METHODS) {
    const fn = (inner[method] as (...a: unknown[]) => Promise<unknown>).bind(inner);
    wrapped[method] = (...args: unknown[]) => {
      const o = args[OPTIONS_INDEX[method]] as BackendCallOptions | undefined;
      const log = loggerOf(o);
      const { ids, detail } = identifiers(method, args);
      const attrs: Attributes = { [`${p}.host`]: options.host };
      for (const [k, v] of Object.entries(ids)) if (v !== undefined) attrs[`${p}.${k}`] = v;
      if (method === 'storageVolUpload') detail.length = args[2] as number;
      const started = performance.now();
      return withSpan(
        `${p}.${pascal(method)}`,
        attrs,
        async (span) => {
          try {
            const result = await fn(...args);
            const s = summarise(method, result);
            const fields: LogFields = {
              method: pascal(method),
              host: options.host,
              ...ids,
              durationMs: Math.round(performance.now() - started),
              ...s.v1,
              ...traceFields(),
            };
            if (method === 'storageVolUpload') fields.length = args[2];
            if (log.verbosity >= 2) log.log(2, 'libvirt call', { ...fields, ...detail, ...s.v2 });
            else log.log(1, 'libvirt call', fields);
            return result;
          } catch (err) {
            const e = err instanceof Error ? err : new Error(String(err));
            const fields: LogFields = {
              method: pascal(method),
              host: options.host,
              ...ids,
              durationMs: Math.round(performance.now() - started),
              error: e.message,
              ...traceFields(),
            };
            if (LibvirtError.isInstance(err)) {
              fields.libvirtCode = err.code;
              fields.libvirtCodeName = err.codeName;
              span.setAttribute(`${p}.libvirt_code`, err.code);
            }
            if (log.verbosity >= 2) log.log(2, 'libvirt call', { ...fields, ...detail });
            else log.log(1, 'libvirt call', fields);
            throw err;
          }
        },
        options.tracer ? { tracer: options.tracer } : {},
      );
    };
  }
  Object.defineProperty(wrapped, 'isOpen', { get: () => inner.isOpen, enumerable: true });
  wrapped.close = () => inner.close();
  return wrapped as unknown as KvmBackend;
}
