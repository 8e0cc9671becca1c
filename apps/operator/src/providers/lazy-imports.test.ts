import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

// What importing a provider package must not load: the clients only a call needs. CJS modules an
// ESM import loads land in the require cache, so a fresh process lists what the import pulled in.
// yaml belongs to the providers-file loader only (a subpath the operator imports).
const HEAVY: Record<string, readonly string[]> = {
  '@egress-proxies/contract': ['yaml', 'zod', '@opentelemetry/api'],
  '@egress-proxies/provider-gcp': ['google-auth-library', 'undici', 'yaml'],
  '@egress-proxies/provider-proxmox': ['undici', 'yaml'],
  '@egress-proxies/provider-kubernetes': ['@kubernetes/client-node', 'yaml'],
  '@egress-proxies/provider-kvm': ['ssh2', 'yaml'],
  '@egress-proxies/provider-kvm2': ['ssh2', 'yaml'],
  '@egress-proxies/provider-local': ['yaml', 'proxy-chain'],
};

function loadedBy(pkg: string): string[] {
  const code = `
    import { createRequire } from 'node:module';
    await import(${JSON.stringify(pkg)});
    const cache = Object.keys(createRequire(import.meta.url).cache);
    console.log(JSON.stringify(cache));
  `;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', code], {
    cwd: process.cwd(),
    encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(`importing ${pkg} failed: ${r.stderr}`);
  return JSON.parse(r.stdout.trim()) as string[];
}

describe.each(Object.entries(HEAVY))('importing %s', (pkg, heavy) => {
  it(`loads none of ${heavy.join(', ')}`, () => {
    const files = loadedBy(pkg);
    // The check itself must see CJS loads at all: the package's own CJS-only dependencies count.
    expect(Array.isArray(files)).toBe(true);
    for (const dep of heavy)
      expect(
        files.filter((f) => f.includes(`/node_modules/${dep}/`)),
        dep,
      ).toEqual([]);
  });
});

it('the check sees a CJS dependency an import does load', () => {
  const code = `
    import { createRequire } from 'node:module';
    await import('undici');
    console.log(JSON.stringify(Object.keys(createRequire(import.meta.url).cache)));
  `;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', code], {
    cwd: `${process.cwd()}/../../packages/provider-proxmox`,
    encoding: 'utf8',
  });
  expect(r.status, r.stderr).toBe(0);
  expect((JSON.parse(r.stdout.trim()) as string[]).some((f) => f.includes('/node_modules/undici/'))).toBe(
    true,
  );
});
