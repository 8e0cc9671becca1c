import { describe, expect, it } from 'vitest';
import { E2E_ENV_VAR, readE2eEnv } from './e2e-env.js';

describe('readE2eEnv', () => {
  it('says how to run the test when the runner did not start it', () => {
    expect(() => readE2eEnv({})).toThrow(/pnpm e2e:vm/);
  });

  it('names a missing field and rejects malformed JSON', () => {
    expect(() => readE2eEnv({ [E2E_ENV_VAR]: '{' })).toThrow(/not JSON/);
    expect(() => readE2eEnv({ [E2E_ENV_VAR]: JSON.stringify({ netns: 'n' }) })).toThrow(/EP_E2E_ENV\.bridge/);
  });
});
