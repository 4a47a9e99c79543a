import { defineConfig } from 'vitest/config';

// Checks against Pipecat's own release corpora, which live outside this repository:
// ../shared/compat (or $EARSHOT_COMPAT_DIR) holds pipecat-release-evals/ and pipecat-evals-newest/.
export default defineConfig({
  test: {
    include: ['test/compat/**/*.test.ts'],
    testTimeout: 60_000,
  },
});
