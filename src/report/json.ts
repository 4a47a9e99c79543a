import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { redactDeep, type RunSummary } from '../results/index.js';
import type { Reporter, ReporterOptions } from './reporter.js';

/** The run summary as JSON: to stdout, or to the file given as `json=PATH`. */
export function createJsonReporter(options: ReporterOptions): Reporter {
  const file = options.file;
  return {
    name: 'json',
    printsToTerminal: file === undefined,
    onEnd(summary: RunSummary) {
      const text = `${JSON.stringify(redactDeep(summary, options.redactor), null, 2)}\n`;
      if (file === undefined) {
        options.stdout.write(text);
        return;
      }
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, text);
    },
  };
}
