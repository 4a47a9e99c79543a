import type { EarshotEvent } from '../results/events.js';
import type { ExpectationResult, Failure } from '../results/types.js';
import type { Scenario, Turn } from '../scenario/index.js';
import type { DriverRuntime, SentInput, SessionDriver, TurnInput } from './driver.js';
import { DeadlineError, QueueClosedError } from './event-queue.js';
import { checkTranscripts } from './transcript-metrics.js';

/** An event-anchored `send_after` waits at most this long for its event. */
export const SEND_AFTER_MAX_WAIT_MS = 30_000;
/**
 * How long a turn waits for the bot to finish speaking before it sends
 * (Pipecat's `BOT_QUIET_MAX_WAIT_S`, 30 s): a reply is still spoken after its
 * first sentence satisfied the previous turn, and a turn sent over it would
 * have that tail transcribed as its own reply.
 */
export const BOT_QUIET_MAX_WAIT_MS = 30_000;

export interface ScriptDriverOptions {
  /** An event-anchored `send_after` waits at most this long for its event (default 30 s, as Pipecat). */
  sendAfterMaxWaitMs?: number;
  /** How long a turn waits for the bot to stop speaking before it sends anyway (default 30 s, as Pipecat). */
  botQuietMaxWaitMs?: number;
}

/**
 * Plays a scenario's `turns:` in order (Pipecat's `script_driver.py`): a turn
 * with a `send_after` waits for it; one that sends without it waits for the
 * bot to finish speaking, like a caller who waits for the end of the
 * sentence (at most `BOT_QUIET_MAX_WAIT_MS`, then it sends anyway); one that
 * only observes, after the first, lets the reply still being spoken end and
 * drops it (it belongs to the turn before). Then the turn sends its image
 * and its input (typed, spoken, keys, or nothing), matches its expectations
 * in order against one deadline anchored at the send, and takes its
 * `latency:` verdict. A failed turn ends the scenario unless
 * `stop_on_failure: false`: from there the conversation is in an unknown state.
 */
export class ScriptDriver implements SessionDriver {
  constructor(
    private readonly scenario: Scenario,
    private readonly options: ScriptDriverOptions = {},
  ) {}

  plannedTurns(): TurnInput[] {
    return this.scenario.turns.map(inputOf);
  }

  async run(runtime: DriverRuntime): Promise<void> {
    for (const [index, turn] of this.scenario.turns.entries()) {
      const failures = await this.runTurn(runtime, turn, index);
      if (failures.length && this.scenario.stop_on_failure) {
        runtime.log(`turn ${index} failed; stopping scenario (stop_on_failure)`);
        break;
      }
    }
  }

  private async runTurn(runtime: DriverRuntime, turn: Turn, index: number): Promise<Failure[]> {
    runtime.startTurn(index);
    runtime.log(
      `--- turn ${index}: ${turn.user !== undefined ? JSON.stringify(turn.user) : turn.dtmf !== undefined ? `dtmf ${turn.dtmf}` : '(observe)'}`,
    );
    const failures: Failure[] = [];
    const pendingCalls: EarshotEvent[] = [];

    const sends = turn.user !== undefined || turn.dtmf !== undefined || turn.audio !== undefined;
    if (turn.send_after) {
      const failure = await this.waitSendAfter(runtime, turn, index);
      if (failure) {
        failures.push(failure);
        runtime.endTurn(index, failures);
        return failures;
      }
    } else if (sends) {
      await this.waitBotQuiet(runtime, 'send: waiting for the bot to finish speaking');
    } else if (index > 0 && runtime.botSpeaking) {
      await this.waitBotQuiet(runtime, 'observe: waiting for the bot to finish the previous reply');
      runtime.dropPendingOutput();
    }
    if (turn.image) await runtime.sendImage(turn.image);
    // Anything still queued is an earlier turn's output: this turn's input has not reached the bot yet.
    if (sends) runtime.dropPendingOutput();
    let sent: SentInput = { anchorMs: runtime.clock.now(), kind: 'none' };
    if (turn.dtmf !== undefined) {
      // In-band keys are tones in the caller's audio (earshot extension), spoken like a turn.
      const inband = (turn.dtmf_mode ?? this.scenario.dtmf_mode) === 'inband';
      sent = inband ? await runtime.sendUser({ dtmf: turn.dtmf }, index) : runtime.sendDtmf(turn.dtmf);
    } else if (turn.user !== undefined || turn.audio !== undefined) sent = await runtime.sendUser(turn, index);
    runtime.markSent(index, sent);
    // The murmur plays over the bot's answer while the expectations match it.
    const murmur = turn.backchannel && runtime.backchannel ? runtime.backchannel(index, turn, sent.anchorMs) : null;

    const recorded: ExpectationResult[] = [];
    for (const [expIndex, exp] of turn.expect.entries()) {
      const outcome = await runtime.match(exp, expIndex, {
        turnIndex: index,
        anchorMs: sent.anchorMs,
        defaultWithinMs: exp.within_ms,
        pendingCalls,
      });
      const result: ExpectationResult = {
        index: expIndex,
        event: exp.event,
        status: outcome.ok ? 'passed' : outcome.inconclusive ? 'inconclusive' : 'failed',
      };
      if (outcome.ok) {
        if (outcome.atMs !== undefined)
          result.matched_after_ms = Math.round(outcome.atMs - (sent.anchorMs - runtime.t0Ms));
        if (outcome.text !== undefined) result.text = outcome.text;
        if (outcome.judgeReason !== undefined) result.judge_reason = outcome.judgeReason;
        runtime.log(`matched: ${exp.event}${outcome.summary ? ` ${JSON.stringify(outcome.summary)}` : ''}`);
      } else if (outcome.inconclusive) {
        // Neither a pass nor a failure: the turn goes on, and so does the scenario.
        if (outcome.text !== undefined) result.text = outcome.text;
        result.inconclusive = outcome.inconclusive;
        runtime.log(
          `INCONCLUSIVE: ${exp.event}: [${outcome.inconclusive.kinds.join(', ')}] ${outcome.inconclusive.reason}`,
        );
      } else {
        if (outcome.text !== undefined) result.text = outcome.text;
        failures.push(outcome.failure);
        runtime.log(`FAIL: ${exp.event}: [${outcome.failure.kind}] ${outcome.failure.reason}`);
      }
      recorded.push(result);
      runtime.recordExpectation(index, result, outcome.ok ? undefined : outcome.failure);
      if (!outcome.ok && outcome.endsTurn) break;
    }
    for (let i = recorded.length; i < turn.expect.length; i++)
      runtime.recordExpectation(index, { index: i, event: turn.expect[i].event, status: 'not_run' });
    const latency = await runtime.checkLatency(index, turn.latency);
    if (turn.latency)
      runtime.log(
        `latency: ${latency.failures.length ? latency.failures.map((f) => f.reason).join('; ') : 'within bounds'} (waited ${latency.waitedMs}ms for the metrics)`,
      );
    const transcripts = await checkTranscripts(runtime, turn, index, sent.anchorMs, recorded);
    if (turn.wer)
      runtime.log(
        `wer: ${transcripts.failures.length ? transcripts.failures.map((f) => f.reason).join('; ') : 'within bounds'} (${JSON.stringify(transcripts.metrics)})`,
      );
    failures.push(...latency.failures, ...transcripts.failures);
    const probe = turn.pause && runtime.checkTakeover ? await runtime.checkTakeover(index, turn.takeover) : null;
    if (probe) {
      runtime.log(
        `pause: takeover ${String(probe.metrics.takeover)}, response gap ${probe.metrics.response_gap_ms ?? '-'}ms${probe.failures.length ? ` (FAIL: ${probe.failures[0].reason})` : ''}`,
      );
      failures.push(...probe.failures);
    }
    const murmured = murmur ? await murmur : null;
    if (murmured) {
      runtime.log(
        `backchannel: yielded ${String(murmured.metrics.backchannel_yielded)}${murmured.metrics.yield_ms !== null ? ` after ${murmured.metrics.yield_ms}ms` : ''}${murmured.failures.length ? ` (FAIL: ${murmured.failures[0].reason})` : ''}`,
      );
      failures.push(...murmured.failures);
    }
    const metrics = { ...transcripts.metrics, ...(probe ? probe.metrics : {}), ...(murmured ? murmured.metrics : {}) };
    runtime.endTurn(index, failures, Object.keys(metrics).length ? metrics : undefined);
    return failures;
  }

  private async waitBotQuiet(runtime: DriverRuntime, why: string): Promise<void> {
    if (!runtime.botSpeaking) return;
    runtime.log(why);
    const maxWait = this.options.botQuietMaxWaitMs ?? BOT_QUIET_MAX_WAIT_MS;
    if (!(await runtime.waitBotQuiet(maxWait))) runtime.log(`send: bot still speaking after ${maxWait}ms, going on`);
  }

  private async waitSendAfter(runtime: DriverRuntime, turn: Turn, index: number): Promise<Failure | null> {
    const sendAfter = turn.send_after!;
    if (sendAfter.event === undefined) {
      runtime.log(`send_after: waiting ${sendAfter.delay_ms}ms`);
      await runtime.sleepUntil(runtime.clock.now() + sendAfter.delay_ms);
      return null;
    }
    const maxWait = this.options.sendAfterMaxWaitMs ?? SEND_AFTER_MAX_WAIT_MS;
    runtime.log(`send_after: waiting for '${sendAfter.event}' + ${sendAfter.delay_ms}ms`);
    try {
      // Anchored at the event's latest arrival, even one that came before this turn started.
      const seenAt = await runtime.whenSeen(sendAfter.event, runtime.clock.now() + maxWait);
      await runtime.sleepUntil(runtime.t0Ms + seenAt + sendAfter.delay_ms);
      return null;
    } catch (err) {
      if (!(err instanceof DeadlineError || err instanceof QueueClosedError)) throw err;
      const reason =
        err instanceof QueueClosedError
          ? `the stream ended before '${sendAfter.event}' was seen: ${err.why}`
          : `send_after never fired: event '${sendAfter.event}' not seen within ${maxWait}ms`;
      runtime.log(`FAIL: send_after: ${reason}`);
      return {
        kind: err instanceof QueueClosedError ? err.kind : 'send_after_timeout',
        turn_index: index,
        expectation_index: null,
        event: sendAfter.event,
        reason,
      };
    }
  }
}

function inputOf(turn: Turn): TurnInput {
  const input: TurnInput = {};
  if (turn.user !== undefined) input.user = turn.user;
  if (turn.dtmf !== undefined) input.dtmf = turn.dtmf;
  if (turn.audio !== undefined) input.audio = turn.audio;
  return input;
}
