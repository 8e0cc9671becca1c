import { defineConfig } from 'vitest/config';

// Every package writes a JSON report beside itself so the root test command can sum
// passed/failed/skipped across the whole workspace in one closing line.
export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    reporters: ['default', ['json', { outputFile: '.test-results/vitest.json' }]],
    testTimeout: 30_000,
    hookTimeout: 120_000,
    restoreMocks: true,
  },
});
