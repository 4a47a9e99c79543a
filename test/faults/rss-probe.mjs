// Preloaded into the CLI under test (NODE_OPTIONS=--import=...): when the
// process exits, however it exits, its peak resident set size (KiB, from
// getrusage) is written to $EARSHOT_TEST_RSS_FILE.
import { writeFileSync } from 'node:fs';

const file = process.env.EARSHOT_TEST_RSS_FILE;
if (file) {
  process.on('exit', () => {
    try {
      writeFileSync(file, String(process.resourceUsage().maxRSS));
    } catch {
      // The test then reports the probe's file as missing.
    }
  });
}
