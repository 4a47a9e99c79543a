import { EarshotError, errorMessage } from '../../core/errors.js';
import { Redactor } from '../../core/redact.js';
import { isJudgeError, retryPolicy, type JudgeBackend } from '../../judge/index.js';
import { failure } from '../../results/failure.js';
import type { GaiaResult, ScenarioResult, SimulationEntry } from '../../results/index.js';
import type { GaiaSpec, Scenario } from '../../scenario/index.js';
import { createTurnWriter, type HeardLine, type TurnWriter } from '../../simulate/index.js';
import {
  checkWire,
  gaiaCallsVisible,
  type ConcludeContext,
  type WireSettings,
  type DriverRuntime,
  type DriverSetup,
  type SessionDriver,
  type TurnInput,
} from '../../session/index.js';
import { waitBotQuiet } from '../bot-quiet.js';
import { resolveCallerAndJudge } from '../llm-backends.js';
import { concludeGaia, type GaiaJudgeRecord, type PlayedTurn } from './gaia-conclude.js';
import { GREETING_MAX_MS, GREETING_START_MS, ReplyReader, REPLY_SETTLE_MS } from './replies.js';

export interface GaiaDriverOptions {
  /** The caller's model and the judge, when a caller builds them (tests); else `prepare` does. */
  writer?: TurnWriter;
  judge?: JudgeBackend;
  random?: () => number;
  /** After a reply, how long the bot must stay quiet for it to count as whole (default 1500 ms). */
  replySettleMs?: number;
}

/**
 * Plays a GAIA scenario (a scripted scenario with a `gaia` block, gaia-types.ts) turn by turn, as GAIA's eval agent
 * does, but spoken: it lets the bot's greeting finish, then for each turn says the written `user_message` or one the
 * caller's model writes from the objective and the persona, waits for the bot to be quiet, sends it (typed, or
 * synthesized and paced in real time by the media), and collects the bot's reply and function calls until the bot
 * has been quiet for the settle window or the turn's `within_ms` ran out. The judge comes after the call, in
 * `conclude`: one request per turn, in order, so it adds no latency between turns (gaia-conclude.ts).
 */
export class GaiaDriver implements SessionDriver {
  private readonly gaia: GaiaSpec;
  private writer: TurnWriter | null;
  private judge: JudgeBackend | null;
  private readonly played: PlayedTurn[] = [];
  private readonly transcript: SimulationEntry[] = [];
  private readonly judgeAnswers: GaiaJudgeRecord[] = [];
  private callsVisible = false;
  private documentsVia: GaiaResult['documents_via'];
  private redactor: Redactor | null = null;

  constructor(
    readonly scenario: Scenario,
    private readonly options: GaiaDriverOptions = {},
  ) {
    if (!scenario.gaia) throw new Error(`scenario '${scenario.name}' has no gaia block`);
    this.gaia = scenario.gaia;
    this.writer = options.writer ?? null;
    this.judge = options.judge ?? null;
  }

  plannedTurns(): TurnInput[] {
    return this.gaia.turns.map((t) => (t.user_message !== undefined ? { user: t.user_message } : {}));
  }

  /**
   * The caller's model (only when a turn has no `user_message`) from `simulator:` or `--simulator`, and the judge
   * from `judge.eval:` or `--judge`, each a service or an allowed `factory:`. A block that cannot be used is the
   * run's error, before any bot is contacted.
   */
  async prepare(session: DriverSetup): Promise<void> {
    const { config } = session;
    const { env, redactor, allowCode } = config;
    this.redactor = redactor;
    const needsCaller = !this.writer && this.gaia.turns.some((t) => t.user_message === undefined);
    const { callerConfig, callerBackend, judge } = await resolveCallerAndJudge(
      this.scenario,
      {
        simulator: this.gaia.simulator,
        simulatorOverride: config.simulatorOverride,
        judgeOverride: config.judge.override,
        allowCode,
        env,
        redactor,
      },
      { needsCaller, ...(this.judge ? { judge: this.judge } : {}) },
    );
    this.judge = judge;
    if (needsCaller) {
      this.writer = createTurnWriter({
        config: callerConfig,
        ...(callerBackend ? { backend: callerBackend } : {}),
        env,
        redactor,
        trace: (l) => session.log(l),
        ...(this.options.random ? { random: this.options.random } : {}),
      });
      session.log(`gaia: the caller's model is ${this.writer.description}`);
    }
    const persona = this.gaia.persona;
    session.log(
      `gaia: persona ${persona.name}${persona.builtin ? ' (built-in)' : ' (custom)'}; ${this.gaia.turns.length} ` +
        `turn(s); pass at ${this.gaia.scoring.pass_threshold}`,
    );
  }

  async run(rt: DriverRuntime, signal: AbortSignal): Promise<void> {
    const { gaia } = this;
    const wire: WireSettings = {
      codec: rt.config.codec,
      handshake: rt.config.handshake,
      ...(rt.config.botEnables ? { bot: rt.config.botEnables } : {}),
      ...(rt.config.documentsVia ? { documentsVia: rt.config.documentsVia } : {}),
    };
    this.callsVisible = gaiaCallsVisible(wire);
    const via = checkWire(this.scenario, wire).plan.documents;
    if (via !== 'none') this.documentsVia = via;
    if (!this.callsVisible)
      rt.log(
        `gaia: the ${rt.config.codec} wire does not show the bot's function calls (no --bot-report-level): ` +
          'tool_selection and efficiency are not applicable',
      );
    const audio = this.scenario.judge.modality === 'audio';
    const reader = new ReplyReader(rt, audio, this.transcript, this.options.replySettleMs ?? REPLY_SETTLE_MS);
    const heard: HeardLine[] = [];
    const now = (): number => rt.time.clock.now();
    const greeting = await reader.collect(now() + GREETING_MAX_MS, GREETING_START_MS);
    if (greeting.reply) {
      heard.push({ role: 'bot', text: greeting.reply });
      rt.log(`gaia: greeting ${JSON.stringify(greeting.reply)}`);
    }
    if (greeting.closed) throw new EarshotError(`the stream ended before the first turn: ${greeting.closed.why}`);
    for (const [index, turn] of gaia.turns.entries()) {
      const scope = rt.openTurn(index);
      const written = turn.user_message;
      const text = written ?? (await this.write(rt, turn.objective, heard, signal));
      rt.log(
        `--- turn ${index} (GAIA turn ${turn.turn}, ` +
          `${written === undefined ? 'written by the caller model' : 'as written'}): ${JSON.stringify(text)}`,
      );
      await waitBotQuiet(rt, 'send: waiting for the bot to finish speaking');
      const sent = await scope.send({ user: text });
      this.transcript.push({
        kind: 'caller',
        at_ms: Math.round(sent.anchorMs - rt.time.t0Ms),
        text,
        turn_index: index,
      });
      const got = await reader.collect(sent.anchorMs + turn.within_ms);
      heard.push({ role: 'caller', text }, ...(got.reply ? [{ role: 'bot' as const, text: got.reply }] : []));
      rt.log(
        got.timedOut
          ? `gaia: no reply within ${turn.within_ms}ms`
          : `gaia: reply ${JSON.stringify(got.reply)}${got.calls.length ? ` (${got.calls.length} call(s))` : ''}`,
      );
      this.played.push({
        index,
        userMessage: text,
        source: written === undefined ? 'generated' : 'written',
        reply: got.reply,
        calls: got.calls,
      });
      if (got.closed) {
        scope.end([failure(got.closed.kind, got.closed.why, { turn_index: index })]);
        break;
      }
      scope.end([]);
    }
  }

  async conclude(result: ScenarioResult, ctx: ConcludeContext): Promise<ScenarioResult> {
    const judge = this.judge
      ? {
          backend: this.judge,
          ctx: {
            policy: retryPolicy(),
            redactor: this.redactor ?? new Redactor({}),
            trace: ctx.log,
            random: this.options.random ?? Math.random,
            signal: ctx.signal,
          },
        }
      : null;
    return concludeGaia({
      scenario: this.scenario,
      gaia: this.gaia,
      result,
      played: this.played,
      judgeAnswers: this.judgeAnswers,
      callsVisible: this.callsVisible,
      ...(this.documentsVia ? { documentsVia: this.documentsVia } : {}),
      judge,
      ...(this.writer ? { simulator: this.writer.description } : {}),
      log: ctx.log,
    });
  }

  /** The call's transcript and the judge's raw answers, for the trace file (`traces/<id>.json`). */
  evidence(): Record<string, unknown> {
    return { transcript: this.transcript, judge_answers: this.judgeAnswers };
  }

  /** The caller's words for an objective-only turn; a model that fails is the run's error. */
  private async write(rt: DriverRuntime, objective: string, heard: HeardLine[], signal: AbortSignal): Promise<string> {
    if (!this.writer) throw new EarshotError('a turn has no user_message and no caller model was built');
    const words = await this.writer.write(this.gaia.persona, objective, heard, signal);
    if (isJudgeError(words)) throw new EarshotError(`the caller's model failed: ${errorMessage(words)}`);
    rt.log(`gaia: the caller's model wrote ${JSON.stringify(words)}`);
    return words;
  }
}
