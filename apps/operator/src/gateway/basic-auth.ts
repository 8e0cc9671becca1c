import { timingSafeEqual } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** Proxy users and their passwords; compared in constant time. */
export class ProxyUsers {
  readonly #users: Map<string, Buffer>;

  constructor(users: ReadonlyMap<string, string> | Record<string, string>) {
    const entries = users instanceof Map ? [...users.entries()] : Object.entries(users);
    this.#users = new Map(entries.map(([u, p]) => [u, Buffer.from(p, 'utf8')]));
  }

  get size(): number {
    return this.#users.size;
  }

  check(user: string | undefined, password: string | undefined): boolean {
    if (user === undefined || password === undefined) return false;
    const want = this.#users.get(user);
    const got = Buffer.from(password, 'utf8');
    // Compare against something of the same length either way, so a missing user costs the same.
    const ref = want ?? Buffer.alloc(got.length);
    const same = ref.length === got.length && timingSafeEqual(ref, got);
    return want !== undefined && same;
  }
}

/**
 * Proxy users from a Secret's entries (user, password), read from a mounted directory or through
 * the API; `where` names the source in errors. A trailing newline of a password is dropped.
 */
export function proxyUsersFrom(entries: Iterable<[string, string]>, where: string): ProxyUsers {
  const users = new Map<string, string>();
  for (const [name, password] of entries) {
    if (!/^[A-Za-z0-9_.@+]{1,64}$/.test(name))
      throw new Error(
        `proxy user ${JSON.stringify(name)} in ${where}: expected 1-64 characters of A-Z a-z 0-9 _ . @ +`,
      );
    users.set(name, password.replace(/\r?\n$/, ''));
  }
  if (users.size === 0)
    throw new Error(`no proxy users in ${where}: expected one entry per user holding its password`);
  return new ProxyUsers(users);
}

/**
 * Users from a mounted Secret: one file per user, the file's content the password. Dot-files are
 * Kubernetes' own bookkeeping (`..data`) and are skipped.
 */
export function loadProxyUsers(dir: string): ProxyUsers {
  const entries: [string, string][] = [];
  for (const name of readdirSync(dir)) {
    if (name.startsWith('.')) continue;
    const path = join(dir, name);
    if (!statSync(path).isFile()) continue;
    entries.push([name, readFileSync(path, 'utf8')]);
  }
  return proxyUsersFrom(entries, dir);
}
