import { defineConfig } from 'vitest/config';

// The suite StrykerJS runs against each mutant of the reference provider: the kit itself, and
// nothing else, so the score measures how much the kit catches (not the reference's unit tests).
export default defineConfig({
  test: {
    include: ['test/*.conformance.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    restoreMocks: true,
  },
});
