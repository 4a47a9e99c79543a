import type { Command } from 'commander';
import { Redactor } from '../../core/redact.js';
import { UsageError } from '../../core/errors.js';
import { displayPath, formatDiagnostic, validatePaths, type FileValidation } from '../../scenario/index.js';
import type { CliCommand } from '../command.js';

interface ValidateFlags {
  json?: boolean;
  allowOutsideRoot?: boolean;
}

/** `earshot validate <files-or-dirs...>`: exit 0 when every file is valid, 1 when any is invalid, 2 on usage errors. */
export const validateCommand: CliCommand = {
  name: 'validate',
  register(program: Command): void {
    program
      .command('validate')
      .description('Check scenario, simulation and suite manifest files (folders are searched for *.yaml / *.yml)')
      .argument('<paths...>', 'files or folders')
      .option('--json', 'print one JSON array of the normalized files (includes resolved, defaults filled in)')
      .option('--allow-outside-root', 'let !include, image: and audio: reach outside the scenario root')
      .action((paths: string[], flags: ValidateFlags) => {
        const results = validatePaths(paths, { allowOutsideRoot: flags.allowOutsideRoot === true });
        if (results.length === 0) throw new UsageError(`no .yaml or .yml files found in ${paths.join(', ')}`);
        process.stdout.write(flags.json ? jsonReport(results) : humanReport(results, process.cwd()));
        process.exitCode = results.some((r) => r.status === 'invalid') ? 1 : 0;
      });
  },
};

function humanReport(results: FileValidation[], cwd: string): string {
  const lines: string[] = [];
  const counts = { valid: 0, invalid: 0, skipped: 0 };
  for (const r of results) {
    counts[r.status]++;
    const file = displayPath(r.file, cwd);
    if (r.status === 'skipped') {
      lines.push(`skipped  ${file} (not a scenario, simulation or manifest: an include fragment)`);
      continue;
    }
    const what = r.loaded ? ` (${r.loaded.kind}${'name' in r.loaded ? `: ${r.loaded.name}` : ''})` : '';
    lines.push(`${r.status.padEnd(8)} ${file}${what}`);
    for (const d of r.diagnostics) lines.push(`  ${formatDiagnostic(d, { cwd })}`);
  }
  lines.push('', `${counts.valid} valid, ${counts.invalid} invalid, ${counts.skipped} skipped`);
  return `${lines.join('\n')}\n`;
}

/** Valid files as their normalized model (source locations left out), the others with their diagnostics. */
function jsonReport(results: FileValidation[]): string {
  const entries = results.map((r) => {
    if (r.loaded) {
      const { locations: _locations, ...model } = r.loaded;
      return { ...model, status: r.status };
    }
    return { kind: null, file: r.file, status: r.status, diagnostics: r.diagnostics };
  });
  // A scenario may carry an api_key; the environment's secrets are masked too.
  return `${JSON.stringify(new Redactor(process.env).value(entries), null, 2)}\n`;
}
