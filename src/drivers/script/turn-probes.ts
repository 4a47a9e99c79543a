import type { TurnMetrics } from '../../results/index.js';
import type { ExpectationResult, Failure } from '../../results/types.js';
import type { Turn } from '../../scenario/index.js';
import type { DriverRuntime, SentInput, TurnScope } from '../../session/index.js';
import { playBackchannel, type BackchannelVerdict } from '../probes/backchannel.js';
import { awaitLatencyVerdict } from '../probes/latency.js';
import { checkTakeover } from '../probes/takeover.js';
import { checkTranscripts } from '../probes/transcripts.js';

/** A turn's verdicts beyond its expectations, and what they measured. */
export interface ProbeVerdict {
  failures: Failure[];
  metrics: Partial<TurnMetrics>;
}

/**
 * The probes of one sent turn. A backchannel starts at once (the murmur plays
 * over the bot's answer while the expectations match it); the rest are taken
 * once the expectations are done (`verdict`): the `latency:` bounds, the word
 * error rates and `wer:`, the pause probe's takeover, then the backchannel's
 * outcome.
 */
export function turnProbes(
  rt: DriverRuntime,
  scope: TurnScope,
  turn: Turn,
  sent: SentInput,
  signal: AbortSignal,
): { verdict(recorded: readonly ExpectationResult[]): Promise<ProbeVerdict> } {
  const index = scope.index;
  const { time, timeline, config } = rt;
  const gone = (): boolean => rt.stream.closedReason !== null;
  const log = (line: string): void => rt.log(line);
  const murmur: Promise<BackchannelVerdict> | null = turn.backchannel
    ? playBackchannel(index, turn, sent.anchorMs, {
        clock: time.clock,
        timers: time.timers,
        signal,
        t0Ms: time.t0Ms,
        bursts: () => timeline.bursts(index),
        murmur: (text) => scope.murmur(text),
        gone,
        log,
      })
    : null;
  return {
    async verdict(recorded) {
      const wait = { clock: time.clock, timers: time.timers, waitMs: config.latencyWaitMs, gone, signal };
      const latency = await awaitLatencyVerdict(timeline, index, turn.latency, wait);
      if (turn.latency) {
        const said = latency.failures.length ? latency.failures.map((f) => f.reason).join('; ') : 'within bounds';
        log(`latency: ${said} (waited ${latency.waitedMs}ms for the metrics)`);
      }
      const transcripts = await checkTranscripts(rt, turn, index, sent.anchorMs, recorded);
      if (turn.wer) {
        const said = transcripts.failures.length
          ? transcripts.failures.map((f) => f.reason).join('; ')
          : 'within bounds';
        log(`wer: ${said} (${JSON.stringify(transcripts.metrics)})`);
      }
      const failures: Failure[] = [...latency.failures, ...transcripts.failures];
      const probe = turn.pause
        ? await checkTakeover(index, turn.takeover, {
            ...wait,
            snapshot: () => timeline.snapshot(index),
            bursts: () => timeline.bursts(index),
          })
        : null;
      if (probe) {
        const { takeover, response_gap_ms } = probe.metrics;
        const fail = probe.failures.length ? ` (FAIL: ${probe.failures[0].reason})` : '';
        log(`pause: takeover ${String(takeover)}, response gap ${response_gap_ms ?? '-'}ms${fail}`);
        failures.push(...probe.failures);
      }
      const murmured = murmur ? await murmur : null;
      if (murmured) {
        const { backchannel_yielded, yield_ms } = murmured.metrics;
        const after = yield_ms !== null ? ` after ${yield_ms}ms` : '';
        const fail = murmured.failures.length ? ` (FAIL: ${murmured.failures[0].reason})` : '';
        log(`backchannel: yielded ${String(backchannel_yielded)}${after}${fail}`);
        failures.push(...murmured.failures);
      }
      const metrics = {
        ...transcripts.metrics,
        ...(probe ? probe.metrics : {}),
        ...(murmured ? murmured.metrics : {}),
      };
      return { failures, metrics };
    },
  };
}
