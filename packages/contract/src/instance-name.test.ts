import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { instanceName, isInstanceName } from './instance-name.js';

// The naming rules of the four backends, written out here independently of the implementation.
const rules: Record<string, (n: string) => boolean> = {
  // libvirt: non-empty, no "/" (the name becomes a file name), kept to a portable character set.
  libvirtDomain: (n) => n.length > 0 && n.length <= 255 && /^[A-Za-z0-9_][A-Za-z0-9_.+-]*$/.test(n),
  // Proxmox VM name: a DNS name, labels of [A-Za-z0-9] with inner "-", each at most 63.
  proxmoxName: (n) =>
    n.length <= 253 &&
    n.split('.').every((l) => l.length <= 63 && /^[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?$/.test(l)),
  // GCE instance name: RFC 1035, 1-63.
  gceName: (n) => /^[a-z](?:[-a-z0-9]{0,61}[a-z0-9])?$/.test(n),
  // Kubernetes: a DNS-1123 subdomain (object names) and a DNS-1123 label (label values, Services).
  k8sSubdomain: (n) =>
    n.length <= 253 && /^[a-z0-9](?:[-a-z0-9]*[a-z0-9])?(?:\.[a-z0-9](?:[-a-z0-9]*[a-z0-9])?)*$/.test(n),
  k8sLabel: (n) => n.length <= 63 && /^[a-z0-9](?:[-a-z0-9]*[a-z0-9])?$/.test(n),
};

const dnsLabel = fc.stringMatching(/^[a-z0-9](?:[-a-z0-9]{0,61}[a-z0-9])?$/);
const anyNamespace = fc
  .string({ minLength: 1, maxLength: 80, unit: 'binary' })
  .filter((s) => !s.includes('/'));
const anyName = fc.string({ minLength: 1, maxLength: 300, unit: 'binary' });
const pair = fc.oneof(fc.tuple(dnsLabel, dnsLabel), fc.tuple(anyNamespace, anyName));

describe('instanceName', () => {
  it('is valid under every backend rule for any namespace/name', () => {
    fc.assert(
      fc.property(pair, ([ns, name]) => {
        const n = instanceName(ns, name);
        for (const [rule, ok] of Object.entries(rules)) {
          if (!ok(n)) throw new Error(`${JSON.stringify(n)} breaks ${rule}`);
        }
        expect(isInstanceName(n)).toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  it('is stable: the same pair always gives the same name', () => {
    fc.assert(
      fc.property(pair, ([ns, name]) => {
        expect(instanceName(ns, name)).toBe(instanceName(String(ns), String(name)));
      }),
      { numRuns: 300 },
    );
  });

  it('gives different names to different pairs', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(pair, {
          minLength: 200,
          maxLength: 400,
          selector: ([ns, name]) => `${ns}\u0000${name}`,
        }),
        (pairs) => {
          const names = new Set(pairs.map(([ns, name]) => instanceName(ns, name)));
          expect(names.size).toBe(pairs.length);
        },
      ),
      { numRuns: 20 },
    );
  });

  it('separates pairs that differ only in where the namespace ends', () => {
    expect(instanceName('ab', 'c')).not.toBe(instanceName('a', 'bc'));
    expect(() => instanceName('a/b', 'c')).toThrow(/must not contain "\/"/);
  });

  it('rejects empty or non-string parts with the bad value in the message', () => {
    expect(() => instanceName('', 'x')).toThrow(/namespace.*""/);
    expect(() => instanceName('ns', '')).toThrow(/name.*""/);
    expect(() => instanceName(42 as unknown as string, 'x')).toThrow(/42/);
  });

  it('isInstanceName accepts only names instanceName produces', () => {
    expect(isInstanceName('proxy-0123456789abcdef')).toBe(true);
    for (const bad of [
      'proxy-0123456789ABCDEF',
      'proxy-0123',
      'vm-0123456789abcdef',
      'proxy-0123456789abcdef0',
    ]) {
      expect(isInstanceName(bad)).toBe(false);
    }
  });
});
