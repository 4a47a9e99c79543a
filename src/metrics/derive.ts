import type { LatencyMetric } from '../scenario/types.js';
import { round3 } from './bot-metrics.js';
import { formatMs } from './format.js';
import type { BotAudioBurst, BotTokenUsage, ServiceMetrics, TurnTimeline } from './timeline-types.js';

/**
 * Per-turn latency metrics derived from a `TurnTimeline`. All durations are ms on
 * the session's one clock. A metric that cannot be measured in a turn is `null`
 * (never 0: a 0 would read as "instant" in a percentile), and `unmeasured` says why.
 *
 * Anchors:
 * - *end of user speech*: the last voiced sample of the user's audio, as due at
 *   real-time pace (`user_speech_end_at_ms`).
 * - *event anchor*: the end of user speech when the turn has speech; the send for
 *   a `text` or `dtmf` turn without marked speech; none for an observation-only
 *   turn or an audio turn with no voiced samples.
 * - *interrupted audio*: the bot's reply playing at the start of the user's
 *   speech: the burst covering it (onset ≤ start < offset), or, when the user
 *   starts in a pause of at most `bargeInGapMs` after a burst while the bot's
 *   speaking window (its bot_started_speaking … bot_stopped_speaking reports)
 *   is open, the burst before the pause (a Pipecat bot speaks sentence by
 *   sentence, with pauses). Later bursts join it across such pauses while the
 *   window stays open. Its presence makes the turn a barge-in. It ends at its
 *   last burst's offset; when the user started in a pause and no audible audio
 *   followed, at the end of the bot's audio stream (`bot_stream_end`: the bot
 *   stopped sending the pause's silence).
 * - *response onset*: the first bot audio onset at or after the end of user speech
 *   (for turns without speech, the first onset in the window); when the bot's
 *   audio began during the user's speech and was still playing at its end, that
 *   burst's onset (the bot talked over the user).
 *
 * Metrics:
 * - `voice_to_voice_ms` = response onset − end of user speech. null without user
 *   speech, without an onset after it, or when the bot talked over the end of the
 *   user's speech (reported in `unmeasured` and `notes`, never as a negative value).
 * - `llm_ttfb_ms` = first `llm_started` at or after the event anchor − anchor.
 * - `first_token_ms` = first `llm_text` (bot-llm-text chunk) at or after the event anchor − anchor.
 * - `speech_padding_ms` = response onset − the `bot_started_speaking` report nearest
 *   to it (reports from before the user started speaking are ignored). Negative when
 *   the audio was heard before the report arrived.
 * - `bot_speech_ms` = offset of the turn's last burst − response onset (the span of
 *   the reply, pauses included); null while its last burst is still playing.
 * - `interruption_ms` = end of the interrupted audio − start of user speech
 *   (barge-in turns only).
 * - `yielded` = the interrupted audio stopped within `yieldWindowMs` of the start
 *   of the user's speech; false if it never stopped; null when no barge-in.
 * - `talk_over_ms` = how much bot audio that began during the user's speech
 *   overlapped it (0 when none; null without user speech). Not a latency.
 */

export const DEFAULT_YIELD_WINDOW_MS = 2000;
export const DEFAULT_BARGE_IN_GAP_MS = 1000;

export interface DeriveOptions {
  /** How soon after the user's interrupting speech starts the bot's audio must stop to count as yielding. */
  yieldWindowMs?: number;
  /** The longest pause in the bot's speech that still counts as it playing, while its speaking window is open. */
  bargeInGapMs?: number;
}

export interface TurnMetrics {
  voice_to_voice_ms: number | null;
  llm_ttfb_ms: number | null;
  first_token_ms: number | null;
  speech_padding_ms: number | null;
  bot_speech_ms: number | null;
  interruption_ms: number | null;
  yielded: boolean | null;
  talk_over_ms: number | null;
  /** The anchors, ms since session start, for drawing the turn on a timeline. */
  user_speech_start_at_ms: number | null;
  user_speech_end_at_ms: number | null;
  bot_audio_onset_at_ms: number | null;
  bot_audio_offset_at_ms: number | null;
  /** The bot's own `metrics` reports received during the turn, per service. */
  bot_metrics: Record<string, ServiceMetrics>;
  bot_tokens: BotTokenUsage | null;
}

export interface DerivedTurnMetrics {
  turn_index: number;
  metrics: TurnMetrics;
  /** For each latency metric that is null: why it could not be measured. */
  unmeasured: Partial<Record<LatencyMetric, string>>;
  /** Anomalies a reader should see (the bot talked over the user, marks dropped at a cap). */
  notes: string[];
}

export function deriveTurnMetrics(tl: TurnTimeline, options: DeriveOptions = {}): DerivedTurnMetrics {
  const yieldWindowMs = options.yieldWindowMs ?? DEFAULT_YIELD_WINDOW_MS;
  const gapMs = options.bargeInGapMs ?? DEFAULT_BARGE_IN_GAP_MS;
  const unmeasured: Partial<Record<LatencyMetric, string>> = {};
  const notes: string[] = [];
  const start = tl.user_speech_start_at_ms;
  const end = tl.user_speech_end_at_ms;
  const speech = start !== null && end !== null ? { start, end } : null;
  const noSpeech = noSpeechReason(tl);

  const interrupted = speech ? playingAt(tl, speech.start, gapMs) : null;
  const response = responseOnset(tl, speech, interrupted);
  const talkOverMs = speech ? talkOver(tl.bot_audio, speech, interrupted) : null;
  if (talkOverMs) {
    notes.push(
      `the bot's audio began during the user's speech: ${formatMs(talkOverMs)} of overlap ` +
        '(the bot talked over the user)',
    );
  }

  let voiceToVoice: number | null = null;
  if (!speech) unmeasured.voice_to_voice_ms = noSpeech;
  else if (response.talkedOver) {
    unmeasured.voice_to_voice_ms =
      `the bot's audio began ${formatMs(speech.end - response.burst.onset_at_ms)} ` +
      "before the end of the user's speech and was still playing when it ended (the bot talked over the user)";
  } else if (response.burst) voiceToVoice = round3(response.burst.onset_at_ms - speech.end);
  else if (interrupted && (interrupted.end_at_ms === null || interrupted.end_at_ms > speech.end)) {
    unmeasured.voice_to_voice_ms =
      "the interrupted bot audio was still playing at the end of the user's speech " +
      'and no new onset followed in the turn';
  } else unmeasured.voice_to_voice_ms = "no bot audio onset after the end of the user's speech in the turn";

  const anchor = speech ? speech.end : tl.kind === 'text' || tl.kind === 'dtmf' ? tl.send_at_ms : null;
  const anchorName = speech ? "the end of the user's speech" : 'the send';
  const eventLatency = (metric: LatencyMetric, event: 'llm_started' | 'llm_text', label: string): number | null => {
    if (anchor === null) {
      unmeasured[metric] = noSpeech;
      return null;
    }
    const marks = tl.events[event] ?? [];
    const first = marks.find((t) => t >= anchor);
    if (first !== undefined) return round3(first - anchor);
    if (marks.length > 0) {
      const why =
        `${label} arrived only before ${anchorName} ` +
        `(the last ${formatMs(anchor - marks[marks.length - 1])} before it)`;
      unmeasured[metric] = why;
      notes.push(why);
    } else unmeasured[metric] = `no ${label} in the turn`;
    return null;
  };
  const llmTtfb = eventLatency('llm_ttfb_ms', 'llm_started', 'llm_started');
  const firstToken = eventLatency('first_token_ms', 'llm_text', 'LLM text (bot-llm-text)');

  const onset = response.burst?.onset_at_ms ?? null;
  let padding: number | null = null;
  let botSpeech: number | null = null;
  let offset: number | null = null;
  if (onset === null) {
    unmeasured.speech_padding_ms = 'no bot audio onset in the turn to pair with a bot_started_speaking report';
    unmeasured.bot_speech_ms = 'no bot audio in the turn';
  } else {
    const report = nearest(tl.events.bot_started_speaking ?? [], onset, speech ? speech.start : tl.send_at_ms);
    if (report === null) unmeasured.speech_padding_ms = 'no bot_started_speaking report in the turn';
    else padding = round3(onset - report);
    const bursts = tl.bot_audio.filter((b) => b.onset_at_ms >= onset);
    offset = bursts.length > 0 ? bursts[bursts.length - 1].offset_at_ms : null;
    if (offset === null)
      unmeasured.bot_speech_ms = "the bot's audio was still playing at the end of the recorded timeline";
    else botSpeech = round3(offset - onset);
  }

  let interruption: number | null = null;
  let yielded: boolean | null = null;
  if (!speech) unmeasured.interruption_ms = noSpeech;
  else if (!interrupted) {
    unmeasured.interruption_ms = "not a barge-in: no bot audio was playing when the user's speech started";
  } else if (interrupted.silent) {
    unmeasured.interruption_ms =
      "the user started in a pause of the bot's speech (its speaking window open), " +
      'but its audio stream had already ended: when it stopped cannot be measured from its audio';
    yielded = true;
  } else if (interrupted.end_at_ms === null) {
    unmeasured.interruption_ms =
      'the interrupted bot audio never stopped in the recorded timeline (the bot did not yield)';
    yielded = false;
  } else {
    interruption = round3(interrupted.end_at_ms - speech.start);
    yielded = interruption <= yieldWindowMs;
  }

  notes.push(...droppedNotes(tl));
  return {
    turn_index: tl.index,
    metrics: {
      voice_to_voice_ms: voiceToVoice,
      llm_ttfb_ms: llmTtfb,
      first_token_ms: firstToken,
      speech_padding_ms: padding,
      bot_speech_ms: botSpeech,
      interruption_ms: interruption,
      yielded,
      talk_over_ms: talkOverMs,
      user_speech_start_at_ms: start,
      user_speech_end_at_ms: end,
      bot_audio_onset_at_ms: onset,
      bot_audio_offset_at_ms: offset,
      bot_metrics: tl.bot_metrics,
      bot_tokens: tl.bot_tokens,
    },
    unmeasured,
    notes,
  };
}

function noSpeechReason(tl: TurnTimeline): string {
  switch (tl.kind) {
    case 'text':
      return 'text turn: no user speech to measure from';
    case 'dtmf':
      return 'DTMF turn: no user speech to measure from';
    case 'none':
      return 'observation-only turn: nothing was sent';
    default:
      return "no voiced samples were marked for the user's audio";
  }
}

/** The bot's reply playing at the user's onset (see the file comment), as its bursts and where it ended. */
interface Interrupted {
  bursts: BotAudioBurst[];
  /** null while it is still playing (or its stream end is not known yet). */
  end_at_ms: number | null;
  /** The user began in a pause after which the bot sent nothing: no stop to time. */
  silent: boolean;
}

function playingAt(tl: TurnTimeline, atMs: number, gapMs: number): Interrupted | null {
  const all = knownBursts(tl);
  let i = all.findIndex((b) => b.onset_at_ms <= atMs && (b.offset_at_ms === null || b.offset_at_ms > atMs));
  const inPause = i < 0;
  if (inPause) {
    i = lastIndex(all, (b) => b.offset_at_ms !== null && b.offset_at_ms <= atMs);
    if (i < 0 || atMs - (all[i].offset_at_ms as number) > gapMs || !speakingAt(tl, atMs)) return null;
  }
  const bursts = [all[i]];
  for (let k = i + 1; k < all.length; k++) {
    const prev = bursts[bursts.length - 1].offset_at_ms;
    const next = all[k].onset_at_ms;
    if (prev === null || next - prev > gapMs || !openThroughout(tl, prev, next)) break;
    bursts.push(all[k]);
  }
  const last = bursts[bursts.length - 1];
  if (!inPause || bursts.length > 1) return { bursts, end_at_ms: last.offset_at_ms, silent: false };
  // Nothing audible after the user's onset: the bot went quiet where its stream of frames ended.
  const end = streamEnds(tl).find((t) => t >= (last.offset_at_ms as number));
  if (end === undefined) return { bursts, end_at_ms: null, silent: false };
  return end < atMs ? { bursts, end_at_ms: null, silent: true } : { bursts, end_at_ms: end, silent: false };
}

/** Bursts from before the send (the last one, and one still playing) and the turn's own, by onset, once each. */
function knownBursts(tl: TurnTimeline): BotAudioBurst[] {
  const out: BotAudioBurst[] = [];
  for (const b of [tl.bot_audio_before_send, tl.bot_audio_carried, ...tl.bot_audio]) {
    if (b && !out.some((o) => o.onset_at_ms === b.onset_at_ms)) out.push(b);
  }
  return out.sort((a, b) => a.onset_at_ms - b.onset_at_ms);
}

/** The bot's own speaking window at `atMs`: its latest report at or before then says open or closed. */
function speakingAt(tl: TurnTimeline, atMs: number): boolean {
  let state = false;
  for (const r of speakingReports(tl)) if (r.at_ms <= atMs) state = r.open;
  return state;
}

/** Open at `fromMs` and no bot_stopped_speaking report until `toMs`. */
function openThroughout(tl: TurnTimeline, fromMs: number, toMs: number): boolean {
  return speakingAt(tl, fromMs) && !speakingReports(tl).some((r) => !r.open && r.at_ms > fromMs && r.at_ms <= toMs);
}

/** By time; a timeline written without them falls back on the turn's own marks. */
function speakingReports(tl: TurnTimeline): Array<{ at_ms: number; open: boolean }> {
  if (tl.bot_speaking_reports) return tl.bot_speaking_reports;
  const marks = [
    ...(tl.events.bot_started_speaking ?? []).map((at_ms) => ({ at_ms, open: true })),
    ...(tl.events.bot_stopped_speaking ?? []).map((at_ms) => ({ at_ms, open: false })),
  ];
  return marks.sort((a, b) => a.at_ms - b.at_ms);
}

function streamEnds(tl: TurnTimeline): number[] {
  return tl.bot_stream_ends ?? tl.events.bot_stream_end ?? [];
}

function lastIndex<T>(list: readonly T[], test: (x: T) => boolean): number {
  for (let i = list.length - 1; i >= 0; i--) if (test(list[i])) return i;
  return -1;
}

type Response = { burst: null; talkedOver: false } | { burst: BotAudioBurst; talkedOver: boolean };

function responseOnset(
  tl: TurnTimeline,
  speech: { start: number; end: number } | null,
  interrupted: Interrupted | null,
): Response {
  if (!speech) {
    const first = tl.bot_audio[0];
    return first ? { burst: first, talkedOver: false } : { burst: null, talkedOver: false };
  }
  const own = tl.bot_audio.filter((b) => !isPartOf(b, interrupted));
  const covering = own.find(
    (b) => b.onset_at_ms < speech.end && (b.offset_at_ms === null || b.offset_at_ms > speech.end),
  );
  if (covering) return { burst: covering, talkedOver: true };
  const after = own.find((b) => b.onset_at_ms >= speech.end);
  return after ? { burst: after, talkedOver: false } : { burst: null, talkedOver: false };
}

function isPartOf(b: BotAudioBurst, interrupted: Interrupted | null): boolean {
  return interrupted?.bursts.some((m) => m.onset_at_ms === b.onset_at_ms) === true;
}

/** Overlap of the bursts that began during the user's speech with that speech. */
function talkOver(
  bursts: BotAudioBurst[],
  speech: { start: number; end: number },
  interrupted: Interrupted | null,
): number {
  let total = 0;
  for (const b of bursts) {
    if (isPartOf(b, interrupted)) continue;
    if (b.onset_at_ms < speech.start || b.onset_at_ms >= speech.end) continue;
    total += Math.min(b.offset_at_ms ?? speech.end, speech.end) - b.onset_at_ms;
  }
  return round3(total);
}

/** The report nearest to `onsetMs` among those at or after `fromMs`; the earlier wins a tie. */
function nearest(reports: number[], onsetMs: number, fromMs: number): number | null {
  let best: number | null = null;
  for (const r of reports) {
    if (r < fromMs) continue;
    if (best === null || Math.abs(r - onsetMs) < Math.abs(best - onsetMs)) best = r;
  }
  return best;
}

function droppedNotes(tl: TurnTimeline): string[] {
  return Object.entries(tl.dropped).map(([name, n]) =>
    name === 'bot_audio'
      ? `${n} further bot audio bursts were merged into the last one kept (cap reached)`
      : name === 'bot_metrics'
        ? `${n} bot metrics entries were dropped (service cap reached)`
        : `${n} further ${name} marks were not kept (cap reached)`,
  );
}
