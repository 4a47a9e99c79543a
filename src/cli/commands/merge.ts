import type { Command } from 'commander';
import { mergeRuns } from '../../runner/index.js';
import { exitCodeOf } from '../../results/index.js';
import type { CliCommand } from '../command.js';
import { reporterOption } from '../options.js';

interface MergeFlags {
  out: string;
  reporter: string;
  copyArtifacts?: boolean;
}

/**
 * `earshot merge <dirs...> --out DIR`: shard outputs combined into one result set and report.
 * Exit 0 when every scenario is ok and no shard is missing, 1 otherwise, 3 when nothing failed but
 * some verdict was inconclusive, 2 for usage errors.
 */
export const mergeCommand: CliCommand = {
  name: 'merge',
  register(program: Command): void {
    program
      .command('merge')
      .description('Combine the output folders of several runs (shards of one suite) into one result set and report')
      .argument('<dirs...>', 'run output folders, each holding a results.jsonl')
      .requiredOption('--out <dir>', 'folder for the merged results.jsonl, summary.json and reports')
      .addOption(reporterOption())
      .option(
        '--copy-artifacts',
        'copy traces, bot logs and recordings into --out (default: point at the input folders)',
      )
      .action(async (dirs: string[], flags: MergeFlags) => {
        const outcome = await mergeRuns({
          dirs,
          outDir: flags.out,
          reporter: flags.reporter,
          artifacts: flags.copyArtifacts ? 'copy' : 'rebase',
        });
        for (const warning of outcome.warnings) process.stderr.write(`earshot: warning: ${warning}\n`);
        process.exitCode = outcome.missing.length === 0 ? exitCodeOf(outcome.summary) : 1;
      });
  },
};
