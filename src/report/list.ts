import type { Failure, RunSummary, ScenarioResult, TurnResult } from '../results/index.js';
import { inconclusiveLine, inconclusiveOf, resultKey } from '../results/index.js';
import type { Reporter, ReporterOptions, RunStart, ScenarioStart } from './reporter.js';
import {
  SYMBOL,
  colorEnabled,
  failureLine,
  fitLine,
  formatDuration,
  paint,
  scenarioLabel,
  startOf,
  terminalSafe,
  turnInput,
  type Paint,
} from './format.js';
import { dimensionLegend, gaiaGridLines, scenarioTag, summaryGroupLines } from './gaia-text.js';
import { nemoHeadline, nemoSignalLines, nemoSummaryLines } from './nemo-text.js';

const SPINNER = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
const REDRAW_MS = 100;
const BAR_WIDTH = 24;

interface Running {
  info: ScenarioStart;
  startedAtMs: number;
  turnsDone: number;
}

/**
 * Live progress. On a TTY: finished turns and scenarios scroll above a live
 * region holding one spinner line per running scenario (with its elapsed time)
 * and a progress bar. Elsewhere (CI logs): the same lines, plain, nothing redrawn.
 */
export class ListReporter implements Reporter {
  readonly name = 'list';
  readonly printsToTerminal = true;
  private readonly out: ReporterOptions['stdout'];
  private readonly live: boolean;
  private readonly p: Paint;
  private readonly running = new Map<string, Running>();
  private readonly counts = { passed: 0, failed: 0, inconclusive: 0, error: 0, skipped: 0 };
  private total: number | undefined;
  private done = 0;
  private liveLines = 0;
  private ended = false;
  private frame = 0;
  private timer: ReturnType<typeof setInterval> | undefined;
  private beganAtMs: number;

  constructor(private readonly options: ReporterOptions) {
    this.out = options.stdout;
    this.live = options.stdout.isTTY === true && options.env.TERM !== 'dumb' && !options.env.CI;
    this.p = paint(colorEnabled(options.stdout, options.env));
    this.beganAtMs = options.clock.now();
  }

  onBegin(run: RunStart): void {
    this.total = run.total;
    this.beganAtMs = this.options.clock.now();
    const parts = [
      run.total === undefined ? 'Running' : `Running ${run.total} scenario run${run.total === 1 ? '' : 's'}`,
    ];
    if (run.concurrency && run.concurrency > 1) parts.push(`${run.concurrency} at a time`);
    if (run.shard) parts.push(`shard ${run.shard}`);
    if (run.title) parts.push(this.safe(run.title));
    this.emit([this.p.bold(parts.join(' · '))]);
  }

  onScenarioStart(info: ScenarioStart): void {
    this.running.set(resultKey({ file: info.file, name: info.name, run: info }), {
      info,
      startedAtMs: this.options.clock.now(),
      turnsDone: 0,
    });
    if (this.live) {
      this.startTimer();
      this.emit([]);
    } else {
      this.emit([this.p.dim(`▶ ${this.safe(scenarioLabel(info))}${this.tag(info)}`)]);
    }
  }

  onTurnEnd(scenario: ScenarioStart, turn: TurnResult, failures: readonly Failure[]): void {
    const run = this.running.get(resultKey({ file: scenario.file, name: scenario.name, run: scenario }));
    if (run) run.turnsDone += 1;
    const prefix = this.running.size > 1 ? `${this.safe(scenarioLabel(scenario))} › ` : '';
    const lines = [
      `  ${this.symbol(turn.status)} ${prefix}turn ${turn.index + 1} ${this.safe(turnInput(turn), 80)} ` +
        `${this.p.dim(this.turnTiming(turn))}`,
    ];
    if (turn.status === 'failed' || turn.status === 'inconclusive') {
      for (const e of turn.expectations) {
        const f = failures.find((x) => x.expectation_index === e.index);
        const timing = e.matched_after_ms === undefined ? '' : ` ${this.p.dim(formatDuration(e.matched_after_ms))}`;
        const why = f
          ? ` ${this.p.red(this.safe(`${f.kind}: ${f.reason}`))}`
          : e.inconclusive
            ? ' ' +
              this.p.yellow(this.safe(`inconclusive (${e.inconclusive.kinds.join(', ')}): ${e.inconclusive.reason}`))
            : '';
        lines.push(`      ${this.symbol(e.status)} ${e.event}${timing}${why}`);
      }
      for (const f of failures.filter((x) => x.expectation_index === null))
        lines.push(`      ${this.p.red(this.safe(failureLine(f)))}`);
    }
    this.emit(lines);
  }

  onScenarioEnd(result: ScenarioResult): void {
    this.running.delete(resultKey(result));
    this.done += 1;
    this.counts[result.status] += 1;
    const progress = this.total ? this.p.dim(`[${this.done}/${this.total}] `) : '';
    const lines = [
      `${this.symbol(result.status)} ${progress}${this.safe(scenarioLabel(startOf(result)))}` +
        `${this.tag(startOf(result))} ${this.p.dim(`(${formatDuration(result.duration_ms)})`)}`,
    ];
    // A GAIA scenario: its turn × dimension grid, under a legend of the column heads.
    if (result.gaia) {
      lines.push(`    ${this.p.dim(this.safe(dimensionLegend()))}`);
      for (const line of gaiaGridLines(result.gaia)) lines.push(`    ${this.safe(line, 600)}`);
    }
    // A simulated call: how it ended, and how many times the caller spoke.
    const sim = result.simulation;
    if (sim)
      lines.push(
        '    ' +
          this.p.dim(
            this.safe(`call ended by ${sim.ended_by} after ${sim.persona_turns} caller turn(s): ${sim.end_detail}`),
          ),
      );
    // A NeMo scenario: the composite, then each signal with its value and reason.
    if (sim?.nemo) {
      lines.push(`    ${this.safe(nemoHeadline(sim.nemo))}`);
      for (const l of nemoSignalLines(sim.nemo)) lines.push(`      ${this.safe(l, 600)}`);
    }
    for (const f of result.failures.filter((x) => x.turn_index === null))
      lines.push(`    ${this.p.red(this.safe(failureLine(f)))}`);
    if (result.status === 'inconclusive')
      for (const r of inconclusiveOf(result)) lines.push(`    ${this.p.yellow(this.safe(inconclusiveLine(r)))}`);
    if (result.error && !result.failures.some((f) => f.turn_index === null))
      lines.push(`    ${this.p.red(this.safe(result.error))}`);
    if (this.running.size === 0) this.stopTimer();
    this.emit(lines);
  }

  onEnd(summary: RunSummary): void {
    this.stopTimer();
    this.ended = true;
    const lines = [''];
    const bad = summary.scenarios.filter((s) => !s.ok);
    if (bad.length > 0) {
      lines.push(this.p.bold('Not passing:'));
      for (const s of bad) {
        const rate = s.runs > 1 ? ` ${s.passed}/${s.runs - s.skipped - s.inconclusive} passed` : '';
        lines.push(
          `  ${this.outcomeWord(s.outcome)} ${this.safe(s.name)}${s.bot ? ` [${this.safe(s.bot)}]` : ''}${rate} ` +
            `${this.p.dim(this.safe(s.file))}`,
        );
      }
    }
    const doubtful = summary.scenarios.filter((s) => s.inconclusive > 0);
    if (doubtful.length > 0) {
      lines.push(
        this.p.bold(
          'Inconclusive (neither passed nor failed: earshot could not hear the bot reliably, ' +
            'or no NeMo signal had a value):',
        ),
      );
      for (const s of doubtful) {
        lines.push(
          `  ${this.p.yellow(SYMBOL.inconclusive)} ${this.safe(s.name)}${s.bot ? ` [${this.safe(s.bot)}]` : ''} ` +
            `${s.inconclusive}/${s.runs} run${s.runs === 1 ? '' : 's'} ${this.p.dim(this.safe(s.file))}`,
        );
      }
    }
    lines.push(...this.passRates(summary));
    const groups = [...summaryGroupLines(summary), ...nemoSummaryLines(summary)];
    if (groups.length > 0) lines.push(...groups.map((l) => (l.startsWith(' ') ? this.safe(l, 600) : this.p.bold(l))));
    const c = summary.counts;
    const parts = [this.p.green(`${c.passed} passed`)];
    if (c.failed) parts.push(this.p.red(`${c.failed} failed`));
    if (c.inconclusive) parts.push(this.p.yellow(`${c.inconclusive} inconclusive`));
    if (c.error) parts.push(this.p.red(`${c.error} errored`));
    if (c.skipped) parts.push(this.p.yellow(`${c.skipped} skipped`));
    if (summary.outcomes.flaky) parts.push(this.p.yellow(`${summary.outcomes.flaky} flaky`));
    const wall = summary.wall_ms ?? this.options.clock.now() - this.beganAtMs;
    lines.push(
      `${parts.join(' · ')} ` +
        `${this.p.dim(`(${summary.results} run${summary.results === 1 ? '' : 's'} in ${formatDuration(wall)})`)}`,
    );
    this.emit(lines);
  }

  /** With repeats: each scenario's pass rate and its Wilson 95 % interval, so "5/5" is read as "at least 57 %". */
  private passRates(summary: RunSummary): string[] {
    const repeated = summary.scenarios.filter((s) => s.runs > 1 && s.pass_rate !== null && s.pass_rate_ci95);
    if (repeated.length === 0) return [];
    const label = (s: (typeof repeated)[number]): string =>
      `${this.safe(s.name)}${s.bot ? ` [${this.safe(s.bot)}]` : ''}`;
    const width = Math.max(...repeated.map((s) => [...label(s)].length));
    const pct = (x: number): string => String(Math.round(x * 100));
    return [
      this.p.bold('Pass rates (95% Wilson interval):'),
      ...repeated.map((s) => {
        const ci = s.pass_rate_ci95!;
        const rated = s.runs - s.skipped - s.inconclusive;
        return (
          `  ${label(s).padEnd(width)}  ${`${s.passed}/${rated}`.padStart(7)}  ` +
          `${`${pct(s.pass_rate!)}%`.padStart(4)}  ${this.p.dim(`(${pct(ci.low)}–${pct(ci.high)}%)`)}`
        );
      }),
    ];
  }

  /** ` [category · severity]` (dim), or '' for an untagged scenario. */
  private tag(info: ScenarioStart): string {
    const tag = scenarioTag(info);
    return tag ? ` ${this.p.dim(this.safe(tag))}` : '';
  }

  private turnTiming(turn: TurnResult): string {
    const v2v = turn.metrics?.voice_to_voice_ms;
    return (
      `${formatDuration(turn.duration_ms)}` +
      `${typeof v2v === 'number' ? ` · voice-to-voice ${formatDuration(v2v)}` : ''}`
    );
  }

  private symbol(status: keyof typeof SYMBOL): string {
    const s = SYMBOL[status];
    if (status === 'passed') return this.p.green(s);
    if (status === 'failed' || status === 'error') return this.p.red(s);
    return this.p.yellow(s);
  }

  private outcomeWord(outcome: string): string {
    return outcome === 'flaky' ? this.p.yellow('flaky ') : this.p.red('failed');
  }

  private safe(text: string, max?: number): string {
    return terminalSafe(this.options.redactor.text(text), max);
  }

  /** Writes permanent lines; on a TTY, above a freshly drawn live region. */
  private emit(lines: string[]): void {
    if (!this.live) {
      if (lines.length > 0) this.out.write(lines.map((l) => `${l}\n`).join(''));
      return;
    }
    const liveRegion = this.ended ? [] : this.liveRegion();
    let chunk = this.liveLines > 0 ? `\u001b[${this.liveLines}F\u001b[0J` : '';
    chunk += lines.map((l) => `${l}\n`).join('');
    chunk += liveRegion.map((l) => `${l}\n`).join('');
    this.liveLines = liveRegion.length;
    if (chunk) this.out.write(chunk);
  }

  private liveRegion(): string[] {
    const columns = Math.max(20, (this.out.columns ?? 80) - 1);
    const now = this.options.clock.now();
    const spin = this.p.yellow(SPINNER[this.frame % SPINNER.length]);
    const lines = [...this.running.values()].map((r) => {
      const turns =
        r.info.turn_count > 0 ? ` turn ${Math.min(r.turnsDone + 1, r.info.turn_count)}/${r.info.turn_count}` : '';
      return fitLine(
        `${spin} ${this.safe(scenarioLabel(r.info))}${this.p.dim(`${turns} ${formatDuration(now - r.startedAtMs)}`)}`,
        columns,
      );
    });
    if (this.total && this.total > 1) {
      const filled = Math.round((this.done / this.total) * BAR_WIDTH);
      const bar = `${'█'.repeat(filled)}${'░'.repeat(BAR_WIDTH - filled)}`;
      const passed = this.p.green(`${this.counts.passed} ✓`);
      const failed = this.p.red(`${this.counts.failed + this.counts.error} ✗`);
      const tally = `${passed} ${failed}`;
      lines.push(
        fitLine(
          `${bar} ${this.done}/${this.total} ${tally} ${this.p.dim(formatDuration(now - this.beganAtMs))}`,
          columns,
        ),
      );
    }
    return lines;
  }

  private startTimer(): void {
    if (this.timer !== undefined) return;
    this.timer = setInterval(() => {
      this.frame += 1;
      this.emit([]);
    }, REDRAW_MS);
    this.timer.unref?.();
  }

  private stopTimer(): void {
    if (this.timer === undefined) return;
    clearInterval(this.timer);
    this.timer = undefined;
  }
}

export function createListReporter(options: ReporterOptions): Reporter {
  return new ListReporter(options);
}
