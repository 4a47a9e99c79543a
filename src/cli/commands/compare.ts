import { InvalidArgumentError, type Command } from 'commander';
import { COMPARE_OUTPUTS, parseThreshold, runCompare } from '../../tools/compare/index.js';
import type { CliCommand } from '../command.js';
import { positiveInt } from '../options.js';

interface CompareFlags {
  threshold: string;
  alpha: number;
  seed: number;
  resamples: number;
  reporter: string;
}

const HELP = `
BASE and NEW are output folders of earshot run, suite, bench --out or merge (or their
results.jsonl). Scenarios are paired by file and bot, else by name; turns by index.

Per scenario and turn: the pass rate on each side with its Wilson 95% interval and the
change with Newcombe's 95% interval; per latency metric the median on each side, the
median shift with a bootstrap 95% interval (seeded: the same inputs give the same
report) and a two-sided Mann-Whitney U p-value (exact without ties up to 2500 pairs,
else the normal approximation with tie and continuity corrections).

A latency metric REGRESSED when p < --alpha and the median shift exceeds every part of
--threshold (default: more than 10% of the baseline median AND more than 50 ms).
bot_speech_ms has no better direction: a significant shift is "changed". A pass rate
regressed when the interval of its change lies wholly below 0. "too few": a side has
no sample, or fewer than the test needs to ever reach --alpha (at 0.05: 4 runs a side;
use --repeat).

Outputs (--reporter, comma list): list (terminal), markdown[=PATH] (a pull-request
comment; stdout without PATH), json[=PATH], html[=PATH] (default compare.html),
github[=PATH] (appends to $GITHUB_STEP_SUMMARY; ::error annotations under Actions).

Exit 1 when anything regressed, 0 otherwise, 2 for usage errors.`;

function probability(value: string): number {
  const n = Number(value);
  if (!(n > 0 && n < 1)) throw new InvalidArgumentError(`expected a number between 0 and 1, got "${value}"`);
  return n;
}

function seed(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 0xffffffff)
    throw new InvalidArgumentError(`expected a whole number from 0 to 4294967295, got "${value}"`);
  return n;
}

/** `earshot compare BASE NEW`: exit 1 on a regression, 0 otherwise, 2 for usage errors. */
export const compareCommand: CliCommand = {
  name: 'compare',
  register(program: Command): void {
    program
      .command('compare')
      .description(
        'Compare a new run against a baseline: pass rates and latency shifts per scenario and turn, with ' +
          'intervals and p-values; exit 1 on a regression',
      )
      .argument('<base>', 'baseline run output folder (or its results.jsonl)')
      .argument('<new>', 'new run output folder (or its results.jsonl)')
      .option(
        '--threshold <spec>',
        'how far a median must shift to count: N% of the baseline and/or N ms, each exceeded',
        '10%,50ms',
      )
      .option('--alpha <p>', 'significance level of the Mann-Whitney test', probability, 0.05)
      .option('--seed <n>', 'bootstrap seed', seed, 1)
      .option('--resamples <n>', 'bootstrap rounds', positiveInt, 2000)
      .option(
        '--reporter <list>',
        `comma list: ${Object.keys(COMPARE_OUTPUTS).join(', ')} (name=PATH sets a file)`,
        'list',
      )
      .addHelpText('after', HELP)
      .action((base: string, next: string, flags: CompareFlags) => {
        const report = runCompare({
          base,
          next,
          settings: {
            ...parseThreshold(flags.threshold),
            alpha: flags.alpha,
            seed: flags.seed,
            resamples: flags.resamples,
          },
          reporter: flags.reporter,
        });
        process.exitCode = report.ok ? 0 : 1;
      });
  },
};
