import { errorMessage } from '../../core/errors.js';
import { DeadlineError, QueueClosedError } from '../../events/index.js';
import { buildJudge } from '../../match/index.js';
import { failure } from '../../results/failure.js';
import type { Failure } from '../../results/types.js';
import type { Scenario, Turn } from '../../scenario/index.js';
import {
  usesEval,
  type DriverRuntime,
  type DriverSetup,
  type SessionDriver,
  type TurnInput,
  type TurnSend,
} from '../../session/index.js';
import { waitBotQuiet } from '../bot-quiet.js';
import { matchTurn, type ScriptMatching } from './expectations.js';
import { turnProbes } from './turn-probes.js';

/**
 * Plays a scenario's `turns:` in order (Pipecat's `script_driver.py`): a turn
 * with a `send_after` waits for it; one that sends without it waits for the
 * bot to finish speaking, like a caller who waits for the end of the
 * sentence (at most the session's `botQuietMaxWaitMs`, then it sends anyway);
 * one that only observes, after the first, lets the reply still being spoken
 * end and drops it (it belongs to the turn before). Then the turn sends its
 * image and its input (typed, spoken, keys, or nothing), matches its
 * expectations in order against one deadline anchored at the send, and takes
 * its verdicts (`latency:`, `wer:`, the pause and backchannel probes). A
 * failed turn ends the scenario unless `stop_on_failure: false`: from there
 * the conversation is in an unknown state.
 */
export class ScriptDriver implements SessionDriver {
  private readonly matching: ScriptMatching = { judge: null, state: { lastMatchAtMs: -Infinity } };

  constructor(private readonly scenario: Scenario) {}

  plannedTurns(): TurnInput[] {
    return this.scenario.turns.map(inputOf);
  }

  /**
   * The judge, when the scenario uses `eval:`. One that cannot be built is no run error: each `eval:` fails
   * `no_judge` with the reason, and every other check still runs.
   */
  async prepare(session: DriverSetup): Promise<void> {
    if (!usesEval(this.scenario)) return;
    const { config } = session;
    try {
      this.matching.judge = await buildJudge(this.scenario, {
        judge: config.judge,
        allowCode: config.allowCode,
        env: config.env,
        redactor: config.redactor,
        trace: (l) => session.log(l),
      });
    } catch (err) {
      this.matching.noJudgeReason = errorMessage(err);
      session.log(`judge: not available: ${this.matching.noJudgeReason}`);
    }
  }

  async run(rt: DriverRuntime, signal: AbortSignal): Promise<void> {
    const { judge } = this.matching;
    // The judge reads the conversation: what the user said, and every call the bot made as it arrived.
    if (judge) {
      rt.listen({
        userSaid: (said) => judge.addUser(said),
        event: (e) => {
          if (e.name === 'function_call') judge.addCall(e);
          if (e.name === 'function_call_stopped') judge.addCallStopped(e);
        },
      });
    }
    for (const [index, turn] of this.scenario.turns.entries()) {
      const failures = await this.runTurn(rt, turn, index, signal);
      if (failures.length && this.scenario.stop_on_failure) {
        rt.log(`turn ${index} failed; stopping scenario (stop_on_failure)`);
        break;
      }
    }
  }

  private async runTurn(rt: DriverRuntime, turn: Turn, index: number, signal: AbortSignal): Promise<Failure[]> {
    const scope = rt.openTurn(index);
    rt.log(`--- turn ${index}: ${describeInput(turn)}`);
    const sends = turn.user !== undefined || turn.dtmf !== undefined || turn.audio !== undefined;
    if (turn.send_after) {
      const missed = await this.waitSendAfter(rt, turn, index);
      if (missed) {
        scope.end([missed]);
        return [missed];
      }
    } else if (sends) {
      await waitBotQuiet(rt, 'send: waiting for the bot to finish speaking');
    } else if (index > 0 && rt.stream.speaking) {
      await waitBotQuiet(rt, 'observe: waiting for the bot to finish the previous reply');
      rt.stream.dropPending();
    }
    const sent = await scope.send(sendOf(turn, this.scenario));
    // The murmur plays over the bot's answer while the expectations match it.
    const probes = turnProbes(rt, scope, turn, sent, signal);
    const { recorded, failures } = await matchTurn(rt, scope, turn, sent, this.matching, signal);
    const verdict = await probes.verdict(recorded);
    failures.push(...verdict.failures);
    scope.end(failures, Object.keys(verdict.metrics).length ? verdict.metrics : undefined);
    return failures;
  }

  /** Waits for the turn's `send_after`; the failure when its event never came. */
  private async waitSendAfter(rt: DriverRuntime, turn: Turn, index: number): Promise<Failure | null> {
    const sendAfter = turn.send_after!;
    const { time } = rt;
    if (sendAfter.event === undefined) {
      rt.log(`send_after: waiting ${sendAfter.delay_ms}ms`);
      await time.sleepUntil(time.clock.now() + sendAfter.delay_ms);
      return null;
    }
    const maxWait = rt.config.sendAfterMaxWaitMs;
    rt.log(`send_after: waiting for '${sendAfter.event}' + ${sendAfter.delay_ms}ms`);
    try {
      // Anchored at the event's latest arrival, even one that came before this turn started.
      const seenAt = await rt.stream.whenSeen(sendAfter.event, time.clock.now() + maxWait);
      await time.sleepUntil(time.t0Ms + seenAt + sendAfter.delay_ms);
      return null;
    } catch (err) {
      if (!(err instanceof DeadlineError || err instanceof QueueClosedError)) throw err;
      const reason =
        err instanceof QueueClosedError
          ? `the stream ended before '${sendAfter.event}' was seen: ${err.why}`
          : `send_after never fired: event '${sendAfter.event}' not seen within ${maxWait}ms`;
      rt.log(`FAIL: send_after: ${reason}`);
      const kind = err instanceof QueueClosedError ? err.kind : 'send_after_timeout';
      return failure(kind, reason, { turn_index: index, event: sendAfter.event });
    }
  }
}

function describeInput(turn: Turn): string {
  if (turn.user !== undefined) return JSON.stringify(turn.user);
  return turn.dtmf !== undefined ? `dtmf ${turn.dtmf}` : '(observe)';
}

/** What the turn sends: its image, then its keys (in-band when the turn or scenario says so) or its words. */
function sendOf(turn: Turn, scenario: Scenario): TurnSend {
  const send: TurnSend = {};
  if (turn.image !== undefined) send.image = turn.image;
  if (turn.dtmf !== undefined) {
    send.dtmf = turn.dtmf;
    send.inbandDtmf = (turn.dtmf_mode ?? scenario.dtmf_mode) === 'inband';
  } else {
    if (turn.user !== undefined) send.user = turn.user;
    if (turn.audio !== undefined) send.audio = turn.audio;
  }
  return send;
}

function inputOf(turn: Turn): TurnInput {
  const input: TurnInput = {};
  if (turn.user !== undefined) input.user = turn.user;
  if (turn.dtmf !== undefined) input.dtmf = turn.dtmf;
  if (turn.audio !== undefined) input.audio = turn.audio;
  return input;
}
