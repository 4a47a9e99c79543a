import type { Clock } from '../core/clock.js';
import { turnStatusOf } from '../results/hearing.js';
import type { ExpectationResult, Failure, TurnResult } from '../results/types.js';
import type { SaidInput, SentInput, TurnInput, TurnScope, TurnSend } from './driver.js';
import type { SessionProgress } from './progress.js';

/**
 * The result's turn records, as the session keeps them: the planned turns
 * (`not_run` until played), the ones a driver adds, each turn's start, its
 * expectations and its verdict, and the run's failures as turns end.
 */
export class TurnBook {
  readonly records: TurnResult[];
  /** The failures of every ended turn and of the run itself, in the order they happened. */
  readonly failures: Failure[] = [];
  private readonly starts = new Map<number, number>();

  constructor(
    planned: readonly TurnInput[],
    private readonly clock: Clock,
    private readonly t0Ms: number,
    private readonly onProgress: ((progress: SessionProgress) => void) | undefined,
  ) {
    this.records = planned.map((input, index) => notRun(index, input));
  }

  /** A turn a driver decided on as it went; its index. */
  add(input: TurnInput): number {
    const index = this.records.length;
    this.records.push(notRun(index, input));
    return index;
  }

  get(index: number): TurnResult {
    const record = this.records[index];
    if (!record) {
      throw new Error(`turn ${index} is not a turn of this session (${this.records.length} turn(s); add it first)`);
    }
    return record;
  }

  start(index: number): void {
    const record = this.get(index);
    const started = this.clock.now();
    this.starts.set(index, started);
    record.started_at_ms = Math.round(started - this.t0Ms);
    this.onProgress?.({ type: 'turn_start', turn_index: index, input: record.input });
  }

  /**
   * The turn's input is out: its `started_at_ms` counts from the anchor, and words a driver made up for a planned
   * turn (a GAIA objective-only turn) become its `input.user`.
   */
  sent(index: number, sent: SentInput, user?: string): void {
    const record = this.get(index);
    record.started_at_ms = Math.round(sent.anchorMs - this.t0Ms);
    const { input } = record;
    if (user !== undefined && input.user === undefined && input.audio === undefined && input.dtmf === undefined)
      input.user = user;
  }

  record(index: number, result: ExpectationResult, failure?: Failure): void {
    this.get(index).expectations.push(result);
    // One that never ran is listed in the result; nothing happened to report.
    if (result.status !== 'not_run') {
      this.onProgress?.({ type: 'expectation', turn_index: index, expectation: result, failure });
    }
  }

  end(index: number, failures: Failure[], metrics?: TurnResult['metrics']): void {
    const record = this.get(index);
    record.status = turnStatusOf(failures, record.expectations);
    if (metrics) record.metrics = { ...record.metrics, ...metrics };
    record.duration_ms = Math.round(this.clock.now() - (this.starts.get(index) ?? this.t0Ms));
    this.onProgress?.({ type: 'turn_end', turn: record, failures });
    this.failures.push(...failures);
  }
}

function notRun(index: number, input: TurnInput): TurnResult {
  return { index, status: 'not_run', duration_ms: 0, input, expectations: [] };
}

/** What a turn scope does on the wire and the timeline; the runtime implements it. */
export interface TurnWire {
  sendImage(path: string): Promise<void>;
  /** Sends the words or keys of a turn that has some; the anchor they count from. */
  sendInput(input: TurnSend, index: number): Promise<SentInput>;
  murmur(text: string, index: number): Promise<number>;
  dropPending(): void;
  /** The turn's input is out: its timeline window opens at the anchor. */
  opened(index: number, sent: SentInput): void;
  said(said: SaidInput): void;
  now(): number;
}

/** One open turn (driver.ts `TurnScope`): send once, record, end once. */
export class SessionTurn implements TurnScope {
  private sentInput: SentInput | null = null;
  private ended = false;

  constructor(
    readonly index: number,
    private readonly book: TurnBook,
    private readonly wire: TurnWire,
  ) {}

  async send(input: TurnSend, options: { dropStale?: boolean } = {}): Promise<SentInput> {
    this.open('send');
    if (this.sentInput) throw new Error(`turn ${this.index}: its input was already sent`);
    if (input.image !== undefined) await this.wire.sendImage(input.image);
    const sends = input.user !== undefined || input.audio !== undefined || input.dtmf !== undefined;
    // Anything still queued is an earlier turn's output: this turn's input has not reached the bot yet.
    if (sends && options.dropStale !== false) this.wire.dropPending();
    const sent = sends
      ? await this.wire.sendInput(input, this.index)
      : { anchorMs: this.wire.now(), kind: 'none' as const };
    this.sentInput = sent;
    this.wire.opened(this.index, sent);
    this.book.sent(this.index, sent, input.user);
    if (input.user !== undefined) this.wire.said({ kind: 'text', text: input.user });
    else if (input.dtmf !== undefined) this.wire.said({ kind: 'dtmf', keys: input.dtmf });
    return sent;
  }

  murmur(text: string): Promise<number> {
    this.open('murmur');
    return this.wire.murmur(text, this.index);
  }

  record(result: ExpectationResult, failure?: Failure): void {
    this.open('record');
    this.book.record(this.index, result, failure);
  }

  end(failures: Failure[], metrics?: TurnResult['metrics']): void {
    this.open('end');
    this.ended = true;
    this.book.end(this.index, failures, metrics);
  }

  private open(what: string): void {
    if (this.ended) throw new Error(`turn ${this.index}: ${what} after the turn ended`);
  }
}
