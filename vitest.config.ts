import { defineConfig } from 'vitest/config';

// Real-time audio tests share two cores. Most files run two at a time; the few that assert
// on real-time latency (a bot's voice-to-voice answer, microphone pacing, calibration) run
// afterwards, one file at a time, so another file's bots and recognizers do not stretch what
// they measure. Their own concurrency (several sessions in one file) is what they test.
const REALTIME = [
  'test/e2e/audio.e2e.test.ts',
  'test/e2e/bench.e2e.test.ts',
  'test/e2e/wires.e2e.test.ts',
  'test/refbot/audio.test.ts',
  'src/session/media/mic.test.ts',
];

export default defineConfig({
  test: {
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    projects: [
      {
        extends: true,
        test: {
          name: 'parallel',
          include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
          exclude: ['test/compat/**', 'node_modules/**', 'dist/**', ...REALTIME],
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
