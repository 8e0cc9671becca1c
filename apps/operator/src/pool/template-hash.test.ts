import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../domain/canonical-json.js';
import { entryFingerprint } from '../providers/fingerprint.js';
import { templateHash } from './template-hash.js';

// The values below were made by the code that stored them (before canonical JSON was written
// once). Pool members carry their template hash as a label and a changed hash recycles them, so
// these must never move; the keys mix case, `_` and `-`, where key orders disagree.
const mixedKeys = {
  metadata: { labels: { Zeta: '1', alpha: '2', a_b: '3', aB: '4', 'x-y': '5', x1: '6' } },
  spec: {
    provider: 'gcp',
    port: 3128,
    placement: { zone: 'z', machineType: 'e2', region: 'r' },
    cloudInit: { inline: '#cloud-config' },
  },
};

describe('stored digests stay identical', () => {
  it('a pool template hashes as before, whatever the key order of the document', () => {
    expect(templateHash(mixedKeys)).toBe('f12d30a881');
    expect(templateHash({ spec: { port: 8080, provider: 'local' } })).toBe('33fd521b0c');
    const reversed = JSON.parse(JSON.stringify(mixedKeys), (_k, v) =>
      v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).reverse()) : v,
    );
    expect(templateHash(reversed)).toBe('f12d30a881');
  });

  it('a provider entry fingerprints as before', () => {
    const entry = {
      name: 'pve',
      type: 'proxmox',
      config: { tokenSecret: 's', node: 'n1', baseUrl: 'https://h:8006', tokenId: 'a@pam!t' },
    };
    expect(entryFingerprint(entry)).toBe('10c6a9947f43504e');
  });

  it('canonical JSON sorts keys at every depth and keeps arrays in order', () => {
    expect(canonicalJson({ b: [{ d: 1, c: 2 }], a: { z: null, y: 'x' } })).toBe(
      '{"a":{"y":"x","z":null},"b":[{"c":2,"d":1}]}',
    );
  });
});
