import type { Redactor } from '../core/redact.js';
import type { EarshotEvent } from '../results/events.js';
import { withPipecatFields } from '../results/pipecat.js';
import type { Failure, ScenarioResult, TurnResult } from '../results/types.js';
import type { Runnable } from '../scenario/index.js';
import type { SessionOutcome } from './options.js';
import type { Trace } from './trace.js';

/** Everything a finished session knows, as the runtime hands it over. */
export interface OutcomeParts {
  scenario: Runnable;
  startedAt: string;
  durationMs: number;
  turns: TurnResult[];
  failures: Failure[];
  events: EarshotEvent[];
  recording: string | undefined;
  recordingStartedAtMs: number | undefined;
  conditions?: ScenarioResult['conditions'];
  speech?: ScenarioResult['speech'];
  errorText: string | undefined;
  run: ScenarioResult['run'] | undefined;
  redactor: Redactor;
  trace: Trace;
}

/**
 * The session's result line: `error` when earshot could not run it (a refusal,
 * a harness fault), `failed` when the bot failed something, `inconclusive`
 * when nothing failed but a turn's verdict rested on speech earshot could not
 * hear reliably, else `passed`;
 * with Pipecat's field names beside earshot's, and every secret redacted.
 */
export function buildOutcome(parts: OutcomeParts): SessionOutcome {
  const { failures } = parts;
  const status =
    parts.errorText !== undefined || failures.some((f) => f.kind === 'harness_error' || f.kind === 'error')
      ? 'error'
      : failures.length
        ? 'failed'
        : parts.turns.some((t) => t.status === 'inconclusive')
          ? 'inconclusive'
          : 'passed';
  parts.trace.log(`done: ${status.toUpperCase()} (${failures.length} failure(s))`);
  const result: ScenarioResult = {
    name: parts.scenario.name,
    file: parts.scenario.file,
    status,
    started_at: parts.startedAt,
    duration_ms: parts.durationMs,
    turns: parts.turns,
    failures,
    events: parts.events,
    ...(parts.recording !== undefined ? { recording_started_at_ms: parts.recordingStartedAtMs ?? 0 } : {}),
    ...(parts.conditions ? { conditions: parts.conditions } : {}),
    ...(parts.speech ? { speech: parts.speech } : {}),
    ...(parts.errorText !== undefined ? { error: parts.errorText } : {}),
    ...(parts.run ? { run: parts.run } : {}),
  };
  return {
    result: parts.redactor.value(withPipecatFields(result)),
    trace: parts.trace.toText(),
    recording: parts.recording,
  };
}
