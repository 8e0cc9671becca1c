import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadProxyUsers, ProxyUsers } from './basic-auth.js';

let dir: string;
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('proxy users', () => {
  it('checks user and password', () => {
    dir = mkdtempSync(join(tmpdir(), 'gw-users-'));
    const u = new ProxyUsers({ alice: 'pw' });
    expect(u.check('alice', 'pw')).toBe(true);
    expect(u.check('alice', 'pW')).toBe(false);
    expect(u.check('bob', 'pw')).toBe(false);
    expect(u.check(undefined, undefined)).toBe(false);
  });

  it('reads a mounted Secret: one file per user, Kubernetes dot-files skipped', () => {
    dir = mkdtempSync(join(tmpdir(), 'gw-users-'));
    writeFileSync(join(dir, 'alice'), 'pw-a\n');
    writeFileSync(join(dir, 'bob'), 'pw-b');
    mkdirSync(join(dir, '..data'));
    const u = loadProxyUsers(dir);
    expect(u.size).toBe(2);
    expect(u.check('alice', 'pw-a')).toBe(true);
    expect(u.check('bob', 'pw-b')).toBe(true);
  });

  it('names a bad user file and an empty Secret', () => {
    dir = mkdtempSync(join(tmpdir(), 'gw-users-'));
    expect(() => loadProxyUsers(dir)).toThrow(/no proxy users in .*: expected one entry per user/);
    writeFileSync(join(dir, 'al-ice'), 'x');
    expect(() => loadProxyUsers(dir)).toThrow(/proxy user "al-ice" .*expected 1-64 characters/);
  });
});
