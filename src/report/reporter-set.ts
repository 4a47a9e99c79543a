import { EarshotError, errorMessage } from '../core/errors.js';
import {
  summarize,
  type Failure,
  type RunSummary,
  type ScenarioResult,
  type SummaryOptions,
  type TurnResult,
} from '../results/index.js';
import type { Reporter, RunStart, ScenarioStart, TerminalStream } from './reporter.js';

/** One or more reporters failed; the run itself and the other reporters went on. */
export class ReporterError extends EarshotError {
  readonly failures: Array<{ reporter: string; hook: string; message: string }>;
  constructor(failures: Array<{ reporter: string; hook: string; message: string }>) {
    super(`reporting failed: ${failures.map((f) => `${f.reporter} (${f.hook}): ${f.message}`).join('; ')}`);
    this.name = 'ReporterError';
    this.failures = failures;
  }
}

type Hook = 'onBegin' | 'onScenarioStart' | 'onTurnEnd' | 'onScenarioEnd' | 'onEnd';

/**
 * The chosen reporters behind one object. Each hook goes to every reporter in
 * order; a reporter that throws is noted on stderr and skipped for that call
 * (one broken reporter must not stop the run or the others). `onEnd` throws a
 * ReporterError listing every failure once all reporters have finished.
 */
export class ReporterSet {
  private readonly collected: ScenarioResult[] = [];
  private readonly problems: Array<{ reporter: string; hook: string; message: string }> = [];

  constructor(
    readonly reporters: readonly Reporter[],
    private readonly stderr: TerminalStream,
  ) {}

  get names(): string[] {
    return this.reporters.map((r) => r.name);
  }

  /** Every result seen by onScenarioEnd, in arrival order. */
  get results(): readonly ScenarioResult[] {
    return this.collected;
  }

  async onBegin(run: RunStart): Promise<void> {
    await this.call('onBegin', (r) => r.onBegin?.(run));
  }

  async onScenarioStart(info: ScenarioStart): Promise<void> {
    await this.call('onScenarioStart', (r) => r.onScenarioStart?.(info));
  }

  async onTurnEnd(scenario: ScenarioStart, turn: TurnResult, failures: readonly Failure[] = []): Promise<void> {
    await this.call('onTurnEnd', (r) => r.onTurnEnd?.(scenario, turn, failures));
  }

  async onScenarioEnd(result: ScenarioResult): Promise<void> {
    this.collected.push(result);
    await this.call('onScenarioEnd', (r) => r.onScenarioEnd?.(result));
  }

  async onEnd(summary: RunSummary): Promise<void> {
    await this.call('onEnd', (r) => r.onEnd?.(summary));
    if (this.problems.length > 0) throw new ReporterError([...this.problems]);
  }

  /** Summarizes every result seen, ends every reporter, and returns the summary. */
  async finish(options: SummaryOptions = {}): Promise<RunSummary> {
    const summary = summarize(this.collected, options);
    await this.onEnd(summary);
    return summary;
  }

  /**
   * Feeds finished results through every reporter as if they had just run (for
   * `earshot merge`: one report from shard outputs), then ends them.
   */
  async replay(results: readonly ScenarioResult[], run: RunStart, options: SummaryOptions = {}): Promise<RunSummary> {
    await this.onBegin(run);
    for (const result of results) await this.onScenarioEnd(result);
    return this.finish(options);
  }

  private async call(hook: Hook, fn: (r: Reporter) => void | Promise<void>): Promise<void> {
    for (const reporter of this.reporters) {
      try {
        await fn(reporter);
      } catch (err) {
        const message = errorMessage(err);
        this.problems.push({ reporter: reporter.name, hook, message });
        this.stderr.write(`earshot: reporter ${reporter.name} failed in ${hook}: ${message}\n`);
      }
    }
  }
}
