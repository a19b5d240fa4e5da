import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Limits against hangs only: generous, so that a loaded machine cannot fail a test by its speed
    // (scripts/test-under-load.sh runs the suite next to a CPU-heavy process).
    testTimeout: 180_000,
    hookTimeout: 240_000,
    pool: 'forks',
  },
});
