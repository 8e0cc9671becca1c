import { createHmac, generateKeyPairSync, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { checkHostKey, hostFieldMatches, knownKeyTypes, parseKnownHosts } from './known-hosts.js';

function blob(type: string): Buffer {
  const body = randomBytes(32);
  const t = Buffer.from(type);
  const head = Buffer.alloc(4);
  head.writeUInt32BE(t.length);
  const len = Buffer.alloc(4);
  len.writeUInt32BE(body.length);
  return Buffer.concat([head, t, len, body]);
}

function hashed(name: string): string {
  const salt = randomBytes(20);
  return `|1|${salt.toString('base64')}|${createHmac('sha1', salt).update(name).digest('base64')}`;
}

describe('known_hosts', () => {
  const k1 = blob('ssh-ed25519');
  const k2 = blob('ssh-ed25519');
  const rsa = blob('ssh-rsa');

  it('parses plain, marked and hashed lines, skipping comments and junk', () => {
    const text = [
      '# comment',
      '',
      `example.com,10.0.0.1 ssh-ed25519 ${k1.toString('base64')} me@host`,
      `@revoked bad.example ssh-ed25519 ${k2.toString('base64')}`,
      `${hashed('[127.0.0.1]:2222')} ssh-rsa ${rsa.toString('base64')}`,
      'garbage line',
      `mismatched ssh-rsa ${k1.toString('base64')}`,
    ].join('\n');
    const entries = parseKnownHosts(text);
    expect(entries.map((e) => [e.marker, e.keyType, e.line])).toEqual([
      [null, 'ssh-ed25519', 3],
      ['@revoked', 'ssh-ed25519', 4],
      [null, 'ssh-rsa', 5],
    ]);
  });

  it('matches host names, [host]:port, wildcards, negations and hashed names', () => {
    expect(hostFieldMatches('example.com,10.0.0.1', '10.0.0.1', 22)).toBe(true);
    expect(hostFieldMatches('example.com', '10.0.0.1', 22)).toBe(false);
    expect(hostFieldMatches('example.com', 'example.com', 2222)).toBe(false);
    expect(hostFieldMatches('[example.com]:2222', 'example.com', 2222)).toBe(true);
    expect(hostFieldMatches('*.example.com', 'a.example.com', 22)).toBe(true);
    expect(hostFieldMatches('*.example.com,!b.example.com', 'b.example.com', 22)).toBe(false);
    expect(hostFieldMatches('host?', 'host1', 22)).toBe(true);
    expect(hostFieldMatches(hashed('[127.0.0.1]:2222'), '127.0.0.1', 2222)).toBe(true);
    expect(hostFieldMatches(hashed('[127.0.0.1]:2222'), '127.0.0.1', 2223)).toBe(false);
    expect(hostFieldMatches(hashed('127.0.0.1'), '127.0.0.1', 22)).toBe(true);
  });

  it('gives ok, mismatch, unknown and revoked verdicts', () => {
    const entries = parseKnownHosts(
      [
        `[h]:2222 ssh-ed25519 ${k1.toString('base64')}`,
        `@revoked * ssh-ed25519 ${k2.toString('base64')}`,
      ].join('\n'),
    );
    expect(checkHostKey(entries, 'h', 2222, k1).result).toBe('ok');
    expect(checkHostKey(entries, 'h', 2222, blob('ssh-ed25519')).result).toBe('mismatch');
    expect(checkHostKey(entries, 'other', 2222, blob('ssh-ed25519')).result).toBe('unknown');
    expect(checkHostKey(entries, 'h', 2222, k2).result).toBe('revoked');
    expect(knownKeyTypes(entries, 'h', 2222)).toEqual(['ssh-ed25519']);
  });

  it('accepts a real OpenSSH-encoded key line', () => {
    const { publicKey } = generateKeyPairSync('ed25519');
    const raw = publicKey.export({ format: 'der', type: 'spki' }).subarray(-32);
    const t = Buffer.from('ssh-ed25519');
    const b = Buffer.concat([Buffer.from([0, 0, 0, t.length]), t, Buffer.from([0, 0, 0, 32]), raw]);
    const [entry] = parseKnownHosts(`host ssh-ed25519 ${b.toString('base64')}`);
    expect(entry?.key.equals(b)).toBe(true);
  });
});
