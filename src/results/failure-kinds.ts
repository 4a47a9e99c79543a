import { FAILURE_KINDS, type FailureKind } from './types.js';

/** Where a failure kind is reported: on one expectation, on a turn, on the run, or on a simulation as a whole. */
export type FailureScope = 'expectation' | 'turn' | 'run' | 'simulation';

export interface FailureKindDoc {
  /** Where it is reported (`turn_index` / `expectation_index` null above that level). */
  scope: readonly FailureScope[];
  /** Whose rule it is: Pipecat's (`results.py`, `matcher.py`) or earshot's own. */
  origin: 'pipecat' | 'earshot';
  meaning: string;
}

/**
 * Every failure kind, what it means and where it is reported: the source of
 * the table in docs/architecture.md §5 (`npm run docs:failures` writes it,
 * a unit test checks it). A kind added to `FAILURE_KINDS` without a line here
 * does not compile.
 */
export const FAILURE_KIND_DOCS: Readonly<Record<FailureKind, FailureKindDoc>> = {
  timeout: {
    scope: ['expectation'],
    origin: 'pipecat',
    meaning: "no matching event arrived within the turn's budget (`within_ms`, counted from the send)",
  },
  takeover: {
    scope: ['turn'],
    origin: 'earshot',
    meaning: "`takeover:` of a pause turn: the bot took the turn in the caller's pause, or did not when it should",
  },
  backchannel_yield: {
    scope: ['turn'],
    origin: 'earshot',
    meaning: "`yielded:` of a backchannel turn: the bot stopped for the caller's murmur, or talked over it",
  },
  judge_no: {
    scope: ['expectation', 'turn', 'simulation'],
    origin: 'pipecat',
    meaning:
      'the judge said no to an `eval:` on a reply or a call (or to a judged simulation metric, or to a GAIA ' +
      "turn's `success_criteria`); a judge call that failed twice is a no too",
  },
  judge_continue: {
    scope: ['expectation'],
    origin: 'pipecat',
    meaning: 'the judge was still waiting for more of the reply when the budget ran out',
  },
  no_judge: {
    scope: ['expectation'],
    origin: 'pipecat',
    meaning: 'an `eval:` with no judge: it could not be built (the reason says why)',
  },
  no_content: { scope: ['expectation'], origin: 'pipecat', meaning: 'the event to judge carried no text' },
  text_mismatch: {
    scope: ['expectation'],
    origin: 'pipecat',
    meaning: '`text_contains` (or `text_matches`) never found in the reply within the budget',
  },
  text_present: { scope: ['expectation'], origin: 'pipecat', meaning: '`text_excludes` found in the reply' },
  marker_mismatch: {
    scope: ['expectation'],
    origin: 'pipecat',
    meaning: 'an `llm_marker` of another kind than `marker:` asks',
  },
  marker_format: {
    scope: ['expectation'],
    origin: 'pipecat',
    meaning: 'the raw response breaks `marker_first`, `markers` or `text_after`',
  },
  missing_function_call: {
    scope: ['expectation'],
    origin: 'pipecat',
    meaning: 'an expected function call (by name) never came',
  },
  function_call_unnamed: {
    scope: ['expectation'],
    origin: 'earshot',
    meaning: 'a call arrived without the name a check needs: the bot reports calls at a level that hides names',
  },
  function_args_mismatch: {
    scope: ['expectation'],
    origin: 'pipecat',
    meaning: 'calls of the expected name came, none with the expected `args` (a subset check)',
  },
  unexpected_event: {
    scope: ['expectation'],
    origin: 'pipecat',
    meaning: 'an `absent: true` event arrived within the budget',
  },
  send_after_timeout: {
    scope: ['turn'],
    origin: 'pipecat',
    meaning: "a `send_after` event was not seen within 30 s: the turn's input was never sent",
  },
  connect_failed: {
    scope: ['run'],
    origin: 'pipecat',
    meaning: 'the bot could not be reached (or, in a suite, its process never accepted connections)',
  },
  handshake_timeout: {
    scope: ['run'],
    origin: 'pipecat',
    meaning: 'no `bot-ready` within the gate (10 s)',
  },
  judge_no_verdict: {
    scope: ['turn', 'simulation'],
    origin: 'pipecat',
    meaning: "the judge answered nothing usable about a simulation's goal, a judged metric or a GAIA turn",
  },
  error: {
    scope: ['expectation', 'run'],
    origin: 'pipecat',
    meaning:
      'something the harness needs, not the bot, cannot run: a code hook without `--allow-code`, a Python ' +
      '`factory:` no flag replaces, an event earshot cannot observe, a `text_matches` pattern past its time limit',
  },
  bot_disconnected: {
    scope: ['expectation', 'turn', 'run'],
    origin: 'earshot',
    meaning: 'the bot closed the connection while the harness waited on it',
  },
  protocol_error: {
    scope: ['expectation', 'turn', 'run'],
    origin: 'earshot',
    meaning: 'the bot broke the protocol (a malformed message, an event storm): the session stopped trusting it',
  },
  latency_exceeded: {
    scope: ['turn'],
    origin: 'earshot',
    meaning: 'a `latency:` bound broken, or a bounded metric that could not be measured (the reason says why)',
  },
  number_mismatch: {
    scope: ['expectation'],
    origin: 'earshot',
    meaning: "no number in the reply within `number:`'s tolerance of its value",
  },
  wer_exceeded: {
    scope: ['turn'],
    origin: 'earshot',
    meaning: "a turn's `user_wer` / `bot_wer` outside its `wer:` bounds, or not measurable",
  },
  harness_error: {
    scope: ['turn', 'run'],
    origin: 'earshot',
    meaning: 'earshot itself failed (a bug, or a step that could not finish): the run is an error, not a failure',
  },
  cut_short: {
    scope: ['simulation'],
    origin: 'pipecat',
    meaning: 'the simulated call ended before its goal could be judged (the bot hung up, silence, an error)',
  },
  goal_not_met: { scope: ['simulation'], origin: 'pipecat', meaning: "the judge found the simulation's goal not met" },
  out_of_range: {
    scope: ['simulation'],
    origin: 'pipecat',
    meaning: 'a measured simulation metric (turns, duration, latency) outside its bounds',
  },
  function_calls_mismatch: {
    scope: ['simulation'],
    origin: 'pipecat',
    meaning: "the calls a simulation's bot made differ from the ones its `function_calls` metric expects",
  },
  scorecard_below_threshold: {
    scope: ['simulation', 'turn'],
    origin: 'earshot',
    meaning: "a GAIA scorecard's overall score (a simulation's, or a GAIA turn's weighted total) below its threshold",
  },
  signal_failed: {
    scope: ['simulation'],
    origin: 'earshot',
    meaning:
      'a NeMo success signal did not hold: `is_action_match`, `db_state_match`, `db_state_assertion`, ' +
      '`nl_assertion`, `judge_passed`, `clean_exit` (and the legacy map form: `action_match`, `nl_assertions`)',
  },
  correctness_zero: {
    scope: ['turn'],
    origin: 'earshot',
    meaning:
      "a GAIA turn's correctness set to 0 by an automatic-zero rule (a number more than 5 % off, a wrong name, a " +
      'lazy refusal, a hallucinated source), or `expected_answer: null` answered without saying it does not know',
  },
  too_few_agent_turns: {
    scope: ['simulation'],
    origin: 'earshot',
    meaning:
      'a NeMo scenario whose bot replied fewer times than `--min-agent-turns` (default 3): a failure in the ' +
      'composite rate, left out of the per-signal rates',
  },
  bot_state_error: {
    scope: ['run'],
    origin: 'earshot',
    meaning:
      "a NeMo scenario's bot state could not be seeded (`apply_initialization` failed, was refused or went " +
      'unanswered) while its signals need it: the run is an error, never scored on a half-seeded state',
  },
};

/** The Markdown table of every failure kind, in `FAILURE_KINDS` order (each once). */
export function failureKindsTable(): string {
  const rows = [...new Set(FAILURE_KINDS)].map((kind) => {
    const doc = FAILURE_KIND_DOCS[kind];
    return `| \`${kind}\` | ${doc.scope.join(', ')} | ${doc.origin} | ${doc.meaning} |`;
  });
  return ['| kind | reported on | rule | meaning |', '|---|---|---|---|', ...rows].join('\n');
}

/** The markers around the generated table in a Markdown file. */
export const FAILURE_TABLE_START = '<!-- failure-kinds: generated by `npm run docs:failures`; do not edit -->';
export const FAILURE_TABLE_END = '<!-- /failure-kinds -->';

/** `markdown` with the table between its markers replaced by the current one; throws when a marker is missing. */
export function withFailureKindsTable(markdown: string): string {
  const start = markdown.indexOf(FAILURE_TABLE_START);
  const end = markdown.indexOf(FAILURE_TABLE_END);
  if (start < 0 || end < start) throw new Error(`the failure-kind table's markers are missing: ${FAILURE_TABLE_START}`);
  return `${markdown.slice(0, start + FAILURE_TABLE_START.length)}\n${failureKindsTable()}\n${markdown.slice(end)}`;
}
