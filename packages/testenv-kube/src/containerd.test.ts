import { describe, expect, it } from 'vitest';
import { importWithRetry } from './containerd.js';

const lost = new Error(
  'ctr images import ... failed (exit 1): ctr: content digest sha256:e61b8254584a57a346264a0605c474519a7f7eed3480d7e160acf61af6f6e6de: not found',
);

describe('importWithRetry', () => {
  it('retries an import whose just-written blob was collected, and succeeds', async () => {
    let calls = 0;
    await importWithRetry(
      async () => {
        calls += 1;
        if (calls < 3) throw lost;
      },
      3,
      0,
    );
    expect(calls).toBe(3);
  });

  it('gives up after the last attempt with the error ctr gave', async () => {
    let calls = 0;
    const run = importWithRetry(
      async () => {
        calls += 1;
        throw lost;
      },
      3,
      0,
    );
    await expect(run).rejects.toBe(lost);
    expect(calls).toBe(3);
  });

  it('throws any other error at once', async () => {
    let calls = 0;
    const other = new Error('ctr: failed to open archive: no such file or directory');
    await expect(
      importWithRetry(
        async () => {
          calls += 1;
          throw other;
        },
        3,
        0,
      ),
    ).rejects.toBe(other);
    expect(calls).toBe(1);
  });
});
