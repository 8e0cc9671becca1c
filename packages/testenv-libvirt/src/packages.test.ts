import { describe, expect, it } from 'vitest';
import { TestEnvError } from './errors.js';
import { ensurePackages, missingPackages, REQUIRED_PACKAGES } from './packages.js';

describe('packages', () => {
  it('installs what is missing, then finds every required package present', async () => {
    await ensurePackages();
    expect(await missingPackages(REQUIRED_PACKAGES)).toEqual([]);
    expect(await ensurePackages()).toEqual({ installed: [] });
  }, 900_000);

  it('reports a package that is not installed', async () => {
    expect(await missingPackages(['openssh-server', 'ep-no-such-package-here'])).toEqual([
      'ep-no-such-package-here',
    ]);
  });

  it('rejects something that is not a package name', async () => {
    const err = await missingPackages(['bash; rm -rf /']).catch((e: unknown) => e);
    expect(TestEnvError.isInstance(err) && err.code === 'INVALID_ARGUMENT').toBe(true);
    expect((err as Error).message).toContain('"bash; rm -rf /"');
  });
});
