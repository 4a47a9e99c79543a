import { ResultsWriter } from './writer.js';
import { makeResult } from './fixtures.testutil.js';

/**
 * Child process for the crash-safety test: appends two results, says so, then
 * stays alive until the parent kills it with SIGKILL. Nothing runs after the
 * kill, so whatever is in the file then is what `append` had made durable.
 */
const outDir = process.argv[2];
const writer = new ResultsWriter(outDir, { sync: process.argv[3] !== 'nosync' });
writer.append(makeResult({ file: 'scenarios/a.yaml', reply: 'first </script> line' }));
writer.append(makeResult({ file: 'scenarios/b.yaml', status: 'failed' }));
process.stdout.write('appended 2\n');
setInterval(() => {}, 1000);
