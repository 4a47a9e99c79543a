import { defineConfig } from 'vitest/config';

// Real-time audio tests share two cores: run test files in a small pool and give
// end-to-end files room; unit files finish in milliseconds either way.
export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    exclude: ['test/compat/**', 'node_modules/**', 'dist/**'],
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
