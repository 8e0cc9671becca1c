import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureJudges, PYTHON, runText } from '../test/helpers/iso-tools.js';
import { SeedInputError } from './errors.js';
import { guestAgentScript } from './guest-agent.js';
import { composeVendorData } from './vendor-data.js';

const JUDGE = fileURLToPath(new URL('../test/helpers/mime-judge.py', import.meta.url));
const enc = new TextEncoder();
const sha = (b: Uint8Array | string) => createHash('sha256').update(b).digest('hex');
const script = guestAgentScript();

let dir = '';
let n = 0;
beforeAll(() => {
  ensureJudges();
  dir = mkdtempSync(join(tmpdir(), 'nocloud-mime-'));
}, 900_000);
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

interface Report {
  mime: boolean;
  parts: { type: string; length: number; sha256: string }[];
}

/** What cloud-init's MIME walk (reimplemented with Python's email package) sees. */
function cloudInitParts(doc: string | Uint8Array): Report {
  const file = join(dir, `vd-${n++}`);
  writeFileSync(file, doc);
  return JSON.parse(runText(PYTHON, [JUDGE, file])) as Report;
}

describe('composeVendorData', () => {
  it('returns the script unchanged when there is no operator vendor-data', () => {
    expect(composeVendorData(script)).toBe(script);
    expect(composeVendorData(script, null)).toBe(script);
    expect(composeVendorData(script, '')).toBe(script);
    expect(composeVendorData(script, new Uint8Array(0))).toBe(script);
  });

  it('makes a multipart document cloud-init splits into the script and the extra, byte for byte', () => {
    const extra =
      '#cloud-config\npackages: [ htop ]\nwrite_files:\n  - path: /etc/motd\n    content: "héllo\\n"\n';
    const doc = composeVendorData(script, extra) as string;
    expect(doc).toMatch(/^Content-Type: multipart\/mixed; boundary="[^"]+"\nMIME-Version: 1\.0\n/);
    const r = cloudInitParts(doc);
    expect(r.mime).toBe(true);
    expect(r.parts).toEqual([
      { type: 'text/x-shellscript', length: enc.encode(script).length, sha256: sha(script) },
      { type: 'text/plain', length: enc.encode(extra).length, sha256: sha(extra) },
    ]);
  });

  it('carries arbitrary bytes (not UTF-8) in the extra exactly', () => {
    const extra = Uint8Array.from({ length: 1000 }, (_, i) => (i * 31 + 7) & 0xff);
    const r = cloudInitParts(composeVendorData(script, extra));
    expect(r.parts[1]).toEqual({ type: 'text/plain', length: 1000, sha256: sha(extra) });
  });

  it('labels gzip data so cloud-init decompresses it', () => {
    const plain = '#!/bin/sh\necho operator\n';
    const r = cloudInitParts(composeVendorData(script, new Uint8Array(gzipSync(plain))));
    expect(r.parts[1]).toEqual({ type: 'application/gzip', length: plain.length, sha256: sha(plain) });
  });

  it('nests an operator MIME document so cloud-init walks into its parts', () => {
    const a = '#!/bin/sh\necho a\n';
    const b = '#cloud-config\n{}\n';
    const nested = composeVendorData(a, b) as string;
    const r = cloudInitParts(composeVendorData(script, nested));
    expect(r.parts.map((p) => p.sha256)).toEqual([sha(script), sha(a), sha(b)]);
  });

  it('is deterministic', () => {
    expect(composeVendorData(script, 'x')).toBe(composeVendorData(script, 'x'));
    expect(composeVendorData(script, 'x')).not.toBe(composeVendorData(script, 'y'));
  });

  it.each([
    ['script', () => composeVendorData(3 as never)],
    ['extra', () => composeVendorData(script, { a: 1 } as never)],
  ])('rejects a bad %s with a TypeError naming it', (field, f) => {
    let caught: unknown;
    try {
      f();
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(TypeError);
    expect(SeedInputError.isInstance(caught)).toBe(true);
    expect((caught as SeedInputError).field).toBe(field);
  });
});
