import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bundledRegistry } from '../src/providers/bundled.js';

describe('the operator README', () => {
  it('names exactly the bundled provider types', async () => {
    const readme = readFileSync(join(__dirname, '..', 'README.md'), 'utf8');
    const line = /^This build bundles (\w+) providers: (.*)\(`bundledRegistry\(\)`\);$/m.exec(readme);
    expect(line, 'the README sentence naming the bundled providers').not.toBeNull();
    const named = [...(line?.[2] ?? '').matchAll(/`([a-z0-9]+)`/g)].map((m) => m[1]);
    const types = (await bundledRegistry()).types();
    expect([...named].sort()).toEqual([...types].sort());
    const words = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine'];
    expect(line?.[1]).toBe(words[types.length]);
  });
});
