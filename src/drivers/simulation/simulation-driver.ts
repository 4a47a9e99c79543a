import { EarshotError, errorMessage } from '../../core/errors.js';
import type { Redactor } from '../../core/redact.js';
import { isJudgeError, type JudgeBackend, type RetryPolicy } from '../../judge/index.js';
import type { EarshotEvent } from '../../results/events.js';
import { failure } from '../../results/failure.js';
import type { ScenarioResult, SimulationEndReason, SimulationEntry } from '../../results/index.js';
import type { Simulation } from '../../scenario/index.js';
import {
  concludeSimulation,
  type HeardLine,
  type PersonaMove,
  type PlayedCall,
  type Simulator,
} from '../../simulate/index.js';
import type { NemoVerdictSettings, SummaryPull } from '../../simulate/nemo/index.js';
import { exitToolCalled, nemoSettingsOf, pullSummary, seedBotState } from './bot-state.js';
import { BotTurns } from './bot-turns.js';
import { recordCallEvent } from '../call-entries.js';
import { DeadlineError, QueueClosedError, type QueueEndKind } from '../../events/index.js';
import type { ConcludeContext, DriverRuntime, SessionDriver, TurnInput, TurnScope } from '../../session/index.js';

/** After the persona hangs up on its own last line, how long the bot gets for its closing reply (Pipecat's 15 s). */
export const CLOSING_REPLY_WAIT_MS = 15_000;

export interface SimulationDriverDeps {
  simulator: Simulator;
  /** The judge's model; null when it could not be built (`noJudgeReason` says why; the run is then an error). */
  judge: JudgeBackend | null;
  noJudgeReason?: string;
  redactor: Redactor;
  /** Backoff jitter in [0, 1); seeded in tests. */
  random: () => number;
  judgePolicy: RetryPolicy;
  closingReplyWaitMs?: number;
}

/**
 * The simulated caller (Pipecat's simulation driver): an LLM plays the user
 * from `persona` + `goal`. It listens first: it answers each finished reply of
 * the bot (bot-turns.ts), so the bot opens the call, and a bot that never
 * does ends the run as `silence`. Each answer goes out as the user's turn,
 * typed or, in audio modality, synthesized and streamed in real time; the
 * bot's turn-taking and barge-in are its own, observed in the turn metrics.
 * The call ends when the persona calls `end_call`, the bot hangs up, or a
 * backstop trips (`max_turns`, `max_duration_s`, `max_silence_s`: nothing
 * from either side); a failure of the caller's model ends it as `error`.
 * Then `conclude` has the judge score the whole conversation. A NeMo
 * scenario (`nemo`) adds two wire steps (bot-state.ts): the bot's state is
 * seeded before the call and its summary pulled after it, while the socket is
 * still open; the bot calling an exit tool ends the call as `bot_exit` once
 * its reply is over, and NeMo's signals decide instead of the goal.
 */
export class SimulationDriver implements SessionDriver {
  private readonly transcript: SimulationEntry[] = [];
  private readonly heard: HeardLine[] = [];
  private endedBy: SimulationEndReason | null = null;
  private endDetail = '';
  private personaTurns = 0;
  private endCall: PersonaMove['endCall'];
  private closeCode: number | undefined;
  private streamEndKind: QueueEndKind | undefined;
  private listenedAtMs: number | null = null;
  private endedAtMs: number | null = null;
  private openTurn: TurnScope | null = null;
  private logTo: (line: string) => void = () => undefined;
  /** NeMo: the exit tool the bot called (the call ends as `bot_exit` after its reply). */
  private exitTool: string | null = null;
  /** NeMo: why the bot's state could not be seeded (the run is then an error, `bot_state_error`). */
  private stateError: string | null = null;
  private summary: SummaryPull | undefined;
  private nemoSettings: NemoVerdictSettings | undefined;

  constructor(
    readonly simulation: Simulation,
    /** What it plays the call and judges it with. */
    readonly deps: SimulationDriverDeps,
  ) {}

  /** A line for the session's trace (the caller's model's retries), while the call runs. */
  trace(line: string): void {
    this.logTo(line);
  }

  plannedTurns(): TurnInput[] {
    return [];
  }

  async run(rt: DriverRuntime, signal: AbortSignal): Promise<void> {
    const sim = this.simulation;
    this.logTo = (l) => rt.log(l);
    const bot = new BotTurns(sim.judge.modality === 'audio');
    const { t0Ms } = rt.time;
    const now = (): number => rt.time.clock.now();
    const settings = nemoSettingsOf(rt.config);
    this.nemoSettings = settings;
    // `--duration` is a hard cap over every scenario's own max_duration_s.
    const maxDurationS = Math.min(sim.max_duration_s, settings.durationCapS ?? Number.POSITIVE_INFINITY);
    if (sim.nemo) {
      const seeded = await seedBotState(rt, sim);
      if (!seeded.ok) {
        this.stateError = seeded.reason;
        this.end(rt, 'error', seeded.reason);
        return;
      }
    }
    const startedAt = now();
    this.listenedAtMs = startedAt - t0Ms;
    const deadline = startedAt + maxDurationS * 1000;
    let lastActivity = startedAt;
    let closingEnds: number | null = null;
    rt.log(
      `persona: listening (${this.deps.simulator.description}; up to ${sim.max_turns} turn(s), ` +
        `${maxDurationS}s, ${sim.max_silence_s}s of silence)`,
    );
    while (this.endedBy === null) {
      const lullEnds = lastActivity + sim.max_silence_s * 1000;
      let event: EarshotEvent;
      try {
        event = await rt.stream.next(() => true, Math.min(deadline, lullEnds, closingEnds ?? Infinity));
      } catch (err) {
        if (err instanceof QueueClosedError) {
          this.streamEndKind = err.kind;
          // read-loop.ts words it "connection closed by the bot (code N...)".
          const code = /\(code (\d+)/.exec(err.why);
          if (code) this.closeCode = Number(code[1]);
          this.end(rt, 'bot', err.why);
          break;
        }
        if (!(err instanceof DeadlineError)) throw err;
        const t = now();
        if (closingEnds !== null && t >= closingEnds)
          this.end(rt, this.exitTool ? 'bot_exit' : 'end_call', `${this.endDetail} (the bot gave no closing reply)`);
        else if (t >= deadline) this.end(rt, 'max_duration', `the call reached max_duration_s (${maxDurationS}s)`);
        else if (t >= lullEnds) this.end(rt, 'silence', `nothing happened for max_silence_s (${sim.max_silence_s}s)`);
        continue;
      }
      lastActivity = now();
      this.record(event);
      const exit = sim.nemo && closingEnds === null ? exitToolCalled(event) : null;
      if (exit !== null) {
        // NeMo's `<exit>`: the bot ends the call on purpose; its reply in progress still closes the conversation.
        this.exitTool = exit;
        this.endDetail = `the bot called ${exit}`;
        closingEnds = Math.min(deadline, now() + (this.deps.closingReplyWaitMs ?? CLOSING_REPLY_WAIT_MS));
        rt.log(`persona: the bot called ${exit}; waiting for the end of its reply`);
      }
      const said = bot.observe(event);
      if (said === null) continue;
      this.botSaid(rt, said, event.at_ms);
      if (closingEnds !== null) {
        this.end(rt, this.exitTool ? 'bot_exit' : 'end_call', this.endDetail);
        break;
      }
      const move = await this.ask(signal, deadline - now());
      lastActivity = now();
      if (move === 'deadline') {
        this.end(
          rt,
          'max_duration',
          `the call reached max_duration_s (${maxDurationS}s) while the caller's model was answering`,
        );
        break;
      }
      if (move.say) await this.say(rt, move.say);
      if (move.endCall) {
        this.endCall = move.endCall;
        const detail =
          `the caller hung up (${move.endCall.success ? 'succeeded' : 'gave up'}): ` +
          `${move.endCall.reason || 'no reason given'}`;
        this.transcript.push({ kind: 'end_call', at_ms: Math.round(now() - t0Ms), ...move.endCall });
        if (!move.say) {
          this.end(rt, 'end_call', detail);
          break;
        }
        // It hung up on its own last line: the bot still gets its closing turn (and its final calls).
        this.endDetail = detail;
        closingEnds = Math.min(deadline, now() + (this.deps.closingReplyWaitMs ?? CLOSING_REPLY_WAIT_MS));
        rt.log(`persona: hung up; waiting for the bot's closing reply`);
      } else if (move.say && this.personaTurns >= sim.max_turns) {
        this.end(rt, 'max_turns', `the caller reached max_turns (${sim.max_turns})`);
      }
    }
    // Whatever the bot said last closes the conversation; events already in are part of it.
    for (const event of await this.drain(rt)) {
      this.record(event);
      const said = bot.observe(event);
      if (said !== null) this.botSaid(rt, said, event.at_ms);
    }
    const rest = bot.flush();
    if (rest !== null) this.botSaid(rt, rest, Math.round(now() - t0Ms));
    this.closeTurn();
    // The bot's end state, read while the socket is still open (NeMo's bridge pulls it after `<exit>`).
    if (sim.nemo)
      this.summary =
        this.endedBy === 'bot'
          ? { error: `the bot had already closed the connection (${this.endDetail})` }
          : await pullSummary(rt, sim);
  }

  async conclude(result: ScenarioResult, ctx: ConcludeContext): Promise<ScenarioResult> {
    const { deps } = this;
    let base = result;
    if (this.streamEndKind === 'protocol_error') {
      base = { ...result, failures: [...result.failures, failure('protocol_error', this.endDetail)] };
    }
    if (this.stateError !== null)
      base = { ...base, failures: [...base.failures, failure('bot_state_error', this.stateError)] };
    const judge = deps.judge
      ? {
          backend: deps.judge,
          ctx: {
            policy: deps.judgePolicy,
            redactor: deps.redactor,
            trace: ctx.log,
            random: deps.random,
            signal: ctx.signal,
          },
        }
      : null;
    return concludeSimulation({
      simulation: this.simulation,
      played: this.played(result),
      result: base,
      judge,
      ...(deps.noJudgeReason !== undefined ? { noJudgeReason: deps.noJudgeReason } : {}),
      log: ctx.log,
      ...(this.nemoSettings ? { nemoSettings: this.nemoSettings } : {}),
    });
  }

  private played(result: ScenarioResult): PlayedCall {
    const first = this.transcript[0]?.at_ms ?? this.listenedAtMs ?? 0;
    const end = this.endedAtMs ?? result.duration_ms;
    const played: PlayedCall = {
      transcript: this.transcript,
      endedBy: this.endedBy ?? 'error',
      endDetail: this.endDetail || result.error || result.failures[0]?.reason || 'the call never started',
      personaTurns: this.personaTurns,
      durationS: Math.max(0, Math.round(end - first)) / 1000,
      simulator: this.deps.simulator.description,
    };
    if (this.endCall) played.endCall = this.endCall;
    if (this.closeCode !== undefined) played.closeCode = this.closeCode;
    if (this.summary) played.summary = this.summary;
    return played;
  }

  /** The caller's next move, or 'deadline' when the call's time ran out while its model answered. */
  private async ask(signal: AbortSignal, remainingMs: number): Promise<PersonaMove | 'deadline'> {
    const timeout = AbortSignal.timeout(Math.max(1, Math.ceil(remainingMs)));
    let move: Awaited<ReturnType<Simulator['next']>>;
    try {
      move = await this.deps.simulator.next(this.heard, AbortSignal.any([signal, timeout]));
    } catch (err) {
      if (!signal.aborted && timeout.aborted) return 'deadline';
      throw err;
    }
    if (isJudgeError(move)) {
      this.endedBy = 'error';
      this.endDetail = `the caller's model failed: ${errorMessage(move)}`;
      throw new EarshotError(this.endDetail);
    }
    this.trace(
      `persona (${move.elapsedMs}ms): ${move.say ? JSON.stringify(move.say) : '(nothing said)'}` +
        `${move.endCall ? ` + end_call(success=${move.endCall.success})` : ''}`,
    );
    return move;
  }

  private async say(rt: DriverRuntime, text: string): Promise<void> {
    this.closeTurn();
    const turn = rt.openTurn({ user: text });
    this.openTurn = turn;
    // The caller hears everything the bot says: nothing queued is stale, so nothing is dropped.
    const sent = await turn.send({ user: text }, { dropStale: false });
    this.personaTurns++;
    this.heard.push({ role: 'caller', text });
    const atMs = Math.round(sent.anchorMs - rt.time.t0Ms);
    this.transcript.push({ kind: 'caller', at_ms: atMs, text, turn_index: turn.index });
  }

  private botSaid(rt: DriverRuntime, text: string, atMs: number): void {
    this.heard.push({ role: 'bot', text });
    this.transcript.push({ kind: 'bot', at_ms: Math.round(atMs), text });
    rt.log(`bot turn: ${JSON.stringify(text)}`);
    this.closeTurn();
  }

  private record(event: EarshotEvent): void {
    recordCallEvent(this.transcript, event);
  }

  /** Events already queued when the call ended (nothing waits for more). */
  private async drain(rt: DriverRuntime): Promise<EarshotEvent[]> {
    const out: EarshotEvent[] = [];
    for (;;) {
      try {
        out.push(await rt.stream.next(() => true, rt.time.clock.now() - 1));
      } catch (err) {
        if (err instanceof DeadlineError || err instanceof QueueClosedError) return out;
        throw err;
      }
    }
  }

  private closeTurn(): void {
    if (this.openTurn === null) return;
    this.openTurn.end([]);
    this.openTurn = null;
  }

  private end(rt: DriverRuntime, reason: SimulationEndReason, detail: string): void {
    this.endedBy = reason;
    this.endDetail = detail;
    this.endedAtMs = Math.round(rt.time.clock.now() - rt.time.t0Ms);
    rt.log(`persona: call ended by ${reason} after ${this.personaTurns} turn(s): ${detail}`);
  }
}
