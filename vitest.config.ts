import { defineConfig } from 'vitest/config';

// Three projects (DEVELOPERS.md, "Tests"):
//
// - `unit`: the tests next to the code (src/**/*.test.ts), on manual time where
//   they wait, plus the static architecture check. `npm run test:unit` runs only
//   this one; it must stay well under 90 s on two cores.
// - `integration`: everything under test/ (bots in subprocesses, the refbot,
//   Silero VAD, PocketSphinx, Flite corpora, the built CLI, Chromium, the packed
//   package), two files at a time alongside `unit` under `npm test`.
// - `realtime`: the files that assert on real-time latency (a bot's
//   voice-to-voice answer, microphone pacing, calibration), named
//   `*.realtime.test.ts`, afterwards and one file at a time, so another file's
//   bots and recognizers do not stretch what they measure. Their own
//   concurrency (several sessions in one file) is what they test.
const REALTIME = ['test/**/*.realtime.test.ts'];

export default defineConfig({
  test: {
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['src/**/*.test.ts', 'test/architecture.test.ts'],
          exclude: ['node_modules/**', 'dist/**'],
          maxWorkers: 2,
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['test/**/*.test.ts'],
          exclude: ['test/compat/**', 'test/architecture.test.ts', 'node_modules/**', 'dist/**', ...REALTIME],
          // The same as `unit`: projects of one group share one pool of workers.
          maxWorkers: 2,
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          name: 'realtime',
          include: REALTIME,
          fileParallelism: false,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
