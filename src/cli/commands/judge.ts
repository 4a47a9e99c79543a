import { writeFile } from 'node:fs/promises';
import { InvalidArgumentError, type Command } from 'commander';
import { renderJudgeCheck, runJudgeCheck } from '../../tools/judge-check/index.js';
import type { LlmConfig } from '../../scenario/index.js';
import type { CliCommand } from '../command.js';
import { llmFlag } from '../session-flags.js';
import { positiveInt, secondsToMs } from '../options.js';
import { abortOnSignals } from '../signals.js';

interface CheckFlags {
  /** `--judge`, parsed: the judge block to check in place of the file's. */
  judge?: LlmConfig;
  json?: string;
  judgeCache?: string;
  concurrency: number;
  minAgreement?: number;
  requestTimeout?: number;
}

function fraction(value: string): number {
  const n = Number(value.endsWith('%') ? Number(value.slice(0, -1)) / 100 : value);
  if (!(n >= 0 && n <= 1))
    throw new InvalidArgumentError(`expected a fraction from 0 to 1 (or a percentage), got "${value}"`);
  return n;
}

const HELP = `
LABELS.yaml holds cases: a criterion, a conversation (exchanges of user:/dtmf: and bot:,
where bot: is text or a list of segments and { call: NAME, args, result }), the verdict a
careful human gives (yes, no or continue), a category and a short why. fixtures/judge/
labels.yaml is the set for earshot's default prompt. The judge is the file's judge: {eval:}
block, or --judge; the same services as in scenarios (ollama, openai, any OpenAI-compatible
server with @URL).

Prints agreement with its Wilson 95% interval, Cohen's kappa, agreement per category, the
confusion matrix and every disagreement with the judge's reason; --json writes the same.

Verdicts are not cached unless --judge-cache DIR is given: a check measures the judge as
it answers now, and a cache keyed by a model's name would replay an old model re-pulled
under the same tag.

Exit 0 when every case got a verdict (and, with --min-agreement, the agreement reached
it), 1 otherwise, 2 for usage errors.`;

export const judgeCommand: CliCommand = {
  name: 'judge',
  register(program: Command): void {
    const judge = program.command('judge').description('Measure the LLM judge');
    judge
      .command('check')
      .description('Run the judge over a labelled set: agreement, per category, confusion matrix, disagreements')
      .argument('<labels>', 'labels YAML file (e.g. fixtures/judge/labels.yaml)')
      .option(
        '--judge <spec>',
        "judge to check: openai:MODEL[@URL], ollama:MODEL[@URL] (default: the file's judge: block, else Ollama)",
        llmFlag('--judge'),
      )
      .option('--json <file>', 'write the report as JSON')
      .option('--judge-cache <dir>', 'reuse and store verdicts in this folder (default: ask the judge every time)')
      .option('-c, --concurrency <n>', 'cases judged at once', positiveInt, 4)
      .option('--min-agreement <fraction>', 'exit 1 when the agreement is below this (0.9 or 90%)', fraction)
      .option('--request-timeout <seconds>', 'per judge request (default 60)', secondsToMs)
      .addHelpText('after', HELP)
      .action(async (labels: string, flags: CheckFlags) => {
        const signals = abortOnSignals();
        try {
          const report = await runJudgeCheck({
            labels,
            ...(flags.judge ? { judge: flags.judge } : {}),
            ...(flags.judgeCache ? { cacheDir: flags.judgeCache } : {}),
            concurrency: flags.concurrency,
            ...(flags.requestTimeout ? { requestTimeoutMs: flags.requestTimeout } : {}),
            signal: signals.signal,
            onProgress: (line) => void process.stderr.write(`${line}\n`),
          });
          process.stdout.write(renderJudgeCheck(report));
          if (flags.json) await writeFile(flags.json, `${JSON.stringify(report, null, 2)}\n`);
          const below = flags.minAgreement !== undefined && report.agreement.rate < flags.minAgreement;
          if (below)
            process.stderr.write(
              `earshot: agreement ${(report.agreement.rate * 100).toFixed(1)}% is below --min-agreement ` +
                `${(flags.minAgreement! * 100).toFixed(1)}%\n`,
            );
          process.exitCode = report.errors > 0 || below ? 1 : 0;
        } catch (err) {
          const code = signals.exitCode();
          if (code === null) throw err;
          process.exitCode = code;
        } finally {
          signals.dispose();
        }
      });
  },
};
