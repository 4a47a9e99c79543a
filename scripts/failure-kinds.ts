/**
 * Writes the failure-kind table of docs/architecture.md §5 from
 * `src/results/failure-kinds.ts` (`npm run docs:failures`); `--check` only
 * says whether the file is current (a unit test checks it too).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { withFailureKindsTable } from '../src/results/failure-kinds.js';

const file = join(import.meta.dirname, '..', 'docs', 'architecture.md');
const current = readFileSync(file, 'utf8');
const next = withFailureKindsTable(current);
if (process.argv.includes('--check')) {
  if (next !== current) {
    process.stderr.write(`${file}: the failure-kind table is out of date; run npm run docs:failures\n`);
    process.exit(1);
  }
} else if (next !== current) {
  writeFileSync(file, next);
  process.stdout.write(`wrote the failure-kind table to ${file}\n`);
}
