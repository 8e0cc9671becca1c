import { UUID_BUFLEN } from './constants.js';
import type { RemoteErrorFields } from './errors.js';
import { uuidToBytes, uuidToString } from './uuid.js';
import type { XdrReader, XdrWriter } from './xdr.js';

/** remote_nonnull_domain. The server finds domains by `uuid`; `id` is -1 while inactive. */
export interface Domain {
  name: string;
  uuid: string;
  id: number;
}

/** remote_nonnull_storage_pool, found by `uuid`. */
export interface StoragePool {
  name: string;
  uuid: string;
}

/** remote_nonnull_storage_vol, found by pool name + volume name. For dir pools `key` is the path. */
export interface StorageVol {
  pool: string;
  name: string;
  key: string;
}

function writeUuid(w: XdrWriter, uuid: string, field: string): void {
  // Fast path for canonical text; anything else goes through the validating parser.
  if (!w.uuidText(uuid)) w.fixedOpaque(uuidToBytes(uuid), UUID_BUFLEN, field);
}

export function writeDomain(w: XdrWriter, d: Domain): void {
  w.string(d.name, undefined, 'domain.name');
  writeUuid(w, d.uuid, 'domain.uuid');
  w.int(d.id, 'domain.id');
}

export function readDomain(r: XdrReader): Domain {
  const name = r.string();
  const uuid = uuidToString(r.fixedOpaque(UUID_BUFLEN));
  return { name, uuid, id: r.int() };
}

export function writePool(w: XdrWriter, p: StoragePool): void {
  w.string(p.name, undefined, 'pool.name');
  writeUuid(w, p.uuid, 'pool.uuid');
}

export function readPool(r: XdrReader): StoragePool {
  const name = r.string();
  return { name, uuid: uuidToString(r.fixedOpaque(UUID_BUFLEN)) };
}

export function writeVol(w: XdrWriter, v: StorageVol): void {
  w.string(v.pool, undefined, 'vol.pool');
  w.string(v.name, undefined, 'vol.name');
  w.string(v.key, undefined, 'vol.key');
}

export function readVol(r: XdrReader): StorageVol {
  const pool = r.string();
  const name = r.string();
  return { pool, name, key: r.string() };
}

/** Decodes all eleven fields of remote_error. */
export function readRemoteError(r: XdrReader): RemoteErrorFields {
  const code = r.int();
  const domain = r.int();
  const message = r.optionalString();
  const level = r.int();
  const dom = r.optional(readDomain);
  const str1 = r.optionalString();
  const str2 = r.optionalString();
  const str3 = r.optionalString();
  const int1 = r.int();
  const int2 = r.int();
  const net = r.optional((rr) => {
    const name = rr.string();
    return { name, uuid: uuidToString(rr.fixedOpaque(UUID_BUFLEN)) };
  });
  return { code, domain, message, level, dom, str1, str2, str3, int1, int2, net };
}

/** Encodes remote_error (used by test servers and tools). */
export function writeRemoteError(w: XdrWriter, e: RemoteErrorFields): void {
  w.int(e.code);
  w.int(e.domain);
  w.optionalString(e.message);
  w.int(e.level);
  w.optional(e.dom, (ww, d) => writeDomain(ww, d));
  w.optionalString(e.str1);
  w.optionalString(e.str2);
  w.optionalString(e.str3);
  w.int(e.int1);
  w.int(e.int2);
  w.optional(e.net, (ww, n) => {
    ww.string(n.name);
    ww.fixedOpaque(uuidToBytes(n.uuid), UUID_BUFLEN);
  });
}
