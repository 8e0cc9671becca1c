import type { ComputeApi, ComputeOperation } from './backend.js';
import { ComputeApiError } from './errors.js';

/** How Compute spells a target: always the googleapis host, whichever endpoint was called. */
export const SELF_LINK_BASE = 'https://www.googleapis.com/compute/v1';

export function instanceLink(project: string, zone: string, name: string): string {
  return `${SELF_LINK_BASE}/projects/${project}/zones/${zone}/instances/${name}`;
}

interface InsertRecord {
  zone: string;
  operation: string;
  uid: string;
  /** Operations that started before this were superseded (a Delete of the name since). */
  since: number;
}

const MAX_RECORDS = 10_000;

/**
 * Where Get finds an insert that failed after Compute accepted it. An instance whose insert
 * failed never exists, so nothing can be read from it: the operation is found instead
 * - first in this in-process map (name -> zone, operation), filled by Create: one
 *   `zoneOperations.get`;
 * - otherwise (another process created it, or this one restarted) by listing the zone's insert
 *   operations that target the instance's link and taking the newest.
 * A Delete of the name records a cutoff so an old failed insert is not reported after it.
 */
export class OperationTracker {
  readonly #inserts = new Map<string, InsertRecord>();
  readonly #cutoffs = new Map<string, number>();
  readonly #deletes = new Map<string, string>();

  constructor(
    private readonly api: ComputeApi,
    private readonly project: string,
  ) {}

  recordInsert(zone: string, name: string, operation: string, uid: string): void {
    this.#inserts.delete(name);
    this.#inserts.set(name, { zone, operation, uid, since: Date.now() });
    trim(this.#inserts);
  }

  uidOf(name: string): string | undefined {
    return this.#inserts.get(name)?.uid;
  }

  /** Called when the instance was seen: its insert is no longer interesting. */
  instanceSeen(name: string): void {
    this.#inserts.delete(name);
  }

  /** Called after a Delete found the name gone. */
  forget(zone: string, name: string): void {
    this.#inserts.delete(name);
    this.#cutoffs.set(`${zone}/${name}`, Date.now());
    trim(this.#cutoffs);
  }

  /** The newest insert operation for the instance, or undefined when none is known. */
  async findInsert(
    signal: AbortSignal | undefined,
    zone: string,
    name: string,
  ): Promise<ComputeOperation | undefined> {
    const rec = this.#inserts.get(name);
    if (rec && rec.zone === zone) {
      try {
        return await this.api.getZoneOperation(signal, zone, rec.operation);
      } catch (err) {
        // Operations expire; fall back to the listing below.
        if (!(ComputeApiError.isInstance(err) && err.status === 404)) throw err;
      }
    }
    const link = instanceLink(this.project, zone, name);
    const page = await this.api.listZoneOperations(signal, zone, {
      filter: `(operationType = "insert") AND (targetLink = "${link}")`,
      maxResults: 50,
    });
    const cutoff = this.#cutoffs.get(`${zone}/${name}`) ?? 0;
    const ops = (page.items ?? [])
      .filter((o) => o.operationType === 'insert' && o.targetLink === link)
      .filter((o) => !o.insertTime || Date.parse(o.insertTime) >= cutoff)
      .sort((a, b) => Date.parse(b.insertTime ?? '') - Date.parse(a.insertTime ?? ''));
    return ops[0];
  }

  pendingDelete(key: string): string | undefined {
    return this.#deletes.get(key);
  }

  recordDelete(key: string, operation: string): void {
    this.#deletes.set(key, operation);
    trim(this.#deletes);
  }

  clearDelete(key: string): void {
    this.#deletes.delete(key);
  }
}

function trim<K, V>(map: Map<K, V>): void {
  while (map.size > MAX_RECORDS) {
    const first = map.keys().next();
    if (first.done) return;
    map.delete(first.value);
  }
}
