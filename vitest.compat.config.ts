import { defineConfig } from 'vitest/config';

// Checks against Pipecat's own release corpus, which lives outside this repository
// (../shared/compat/pipecat-release-evals, or $EARSHOT_COMPAT_DIR).
export default defineConfig({
  test: {
    include: ['test/compat/**/*.test.ts'],
    testTimeout: 60_000,
  },
});
