import { accumulateBotMetrics, newBotMetricsAccumulator, type BotMetricsAccumulator } from './bot-metrics.js';
import { TimelineError } from './errors.js';
import type { BotAudioBurst, RtviMetricsInput, TimelineEventName, TurnKind, TurnTimeline } from './timeline-types.js';

export interface TimelineOptions {
  /**
   * How long a turn stays open for late reports after its window closed, ms.
   * Measured audio events carry the sample-accurate time but reach the session
   * after the onset detector's lag, possibly after the next turn began; they
   * still land in the turn whose window holds their time. Default 2000.
   */
  settleMs?: number;
  /** Arrival times kept per event name per turn (first ones win). Default 256. */
  maxMarksPerName?: number;
  /** Bot audio bursts kept per turn; beyond it the last burst absorbs the rest. Default 256. */
  maxBurstsPerTurn?: number;
  /** Distinct services kept in a turn's bot metrics. Default 32. */
  maxServicesPerTurn?: number;
  /**
   * Turns held while waiting to complete. A bot whose audio never stops would
   * otherwise keep every later turn waiting; past this, the oldest is completed
   * with its burst still open. Default 64.
   */
  maxPendingTurns?: number;
}

interface LiveTurn {
  index: number;
  kind: TurnKind;
  sendAtMs: number;
  windowEndAtMs: number | null;
  speechStartAtMs: number | null;
  speechEndAtMs: number | null;
  carried: BotAudioBurst | null;
  bursts: BotAudioBurst[];
  marks: Map<TimelineEventName, number[]>;
  dropped: Map<string, number>;
  botMetrics: BotMetricsAccumulator;
}

/**
 * Builds per-turn timelines as a session runs. The session feeds it as things
 * happen — `beginTurn` at each send, `markUserSpeech` with the pacer's due times,
 * `addEvent` for each translated RTVI event and each measured bot audio
 * start/stop, `addBotMetrics` for each RTVI `metrics` message — and collects
 * finished turns with `takeCompleted` (or all of them after `end`).
 *
 * A turn's window runs from its send to the next turn's send. Everything is
 * routed by its time, not by when it was reported, so a late onset report still
 * lands in the right turn. A turn completes once its window has closed, every
 * bot audio burst it refers to has stopped, and the clock (the latest time fed)
 * has moved `settleMs` past its window; the builder then forgets it, which keeps
 * memory bounded on hour-long calls: a handful of live turns, each with capped
 * lists.
 */
export class TimelineBuilder {
  private readonly settleMs: number;
  private readonly maxMarks: number;
  private readonly maxBursts: number;
  private readonly maxServices: number;
  private readonly maxPending: number;
  private readonly live: LiveTurn[] = [];
  private readonly completed: TurnTimeline[] = [];
  /** The most recent burst by onset (possibly owned by a turn already completed): what a new turn may interrupt. */
  private lastBurst: BotAudioBurst | null = null;
  private openBurst: BotAudioBurst | null = null;
  private latestMs = -Infinity;
  /** Recent speaking reports and stream ends by time, for what a turn carries in from before its send. */
  private readonly reports: Array<{ atMs: number; open: boolean }> = [];
  private readonly streamEnds: number[] = [];
  private unrouted = 0;
  private lastIndex = -Infinity;
  private ended = false;

  constructor(options: TimelineOptions = {}) {
    this.settleMs = options.settleMs ?? 2000;
    this.maxMarks = options.maxMarksPerName ?? 256;
    this.maxBursts = options.maxBurstsPerTurn ?? 256;
    this.maxServices = options.maxServicesPerTurn ?? 32;
    this.maxPending = options.maxPendingTurns ?? 64;
  }

  /** Opens turn `index`'s window at its send (closing the previous one there). */
  beginTurn(index: number, sendAtMs: number, kind: TurnKind): void {
    this.checkOpen('beginTurn');
    checkTime('beginTurn', sendAtMs);
    if (!Number.isInteger(index) || index <= this.lastIndex) {
      throw new TimelineError(
        'beginTurn',
        `turn index ${index} must be an integer above the previous one (${this.lastIndex})`,
      );
    }
    const prev = this.live[this.live.length - 1];
    if (prev && sendAtMs < prev.sendAtMs) {
      throw new TimelineError(
        'beginTurn',
        `turn ${index} sent at ${sendAtMs} ms, before turn ${prev.index}'s send at ${prev.sendAtMs} ms`,
      );
    }
    if (prev) prev.windowEndAtMs = sendAtMs;
    this.lastIndex = index;
    const playing = this.lastBurst && this.lastBurst.onset_at_ms < sendAtMs ? this.lastBurst : null;
    this.live.push({
      index,
      kind,
      sendAtMs,
      windowEndAtMs: null,
      speechStartAtMs: null,
      speechEndAtMs: null,
      carried: playing,
      bursts: [],
      marks: new Map(),
      dropped: new Map(),
      botMetrics: newBotMetricsAccumulator(),
    });
    this.seen(sendAtMs);
    this.settle();
  }

  /**
   * The user's first and last voiced sample, as due at real-time pace. Routed to
   * the turn whose window holds `startAtMs`; a second call for the same turn
   * widens the span (a turn played as several clips, DTMF tones).
   */
  markUserSpeech(startAtMs: number, endAtMs: number): void {
    this.checkOpen('markUserSpeech');
    checkTime('markUserSpeech', startAtMs);
    checkTime('markUserSpeech', endAtMs);
    if (endAtMs < startAtMs) {
      throw new TimelineError('markUserSpeech', `speech ends (${endAtMs} ms) before it starts (${startAtMs} ms)`);
    }
    const turn = this.turnAt(startAtMs);
    if (!turn) throw new TimelineError('markUserSpeech', `no live turn holds ${startAtMs} ms (call beginTurn first)`);
    turn.speechStartAtMs = turn.speechStartAtMs === null ? startAtMs : Math.min(turn.speechStartAtMs, startAtMs);
    turn.speechEndAtMs = turn.speechEndAtMs === null ? endAtMs : Math.max(turn.speechEndAtMs, endAtMs);
  }

  /**
   * Records an event at `atMs` (arrival time; for `bot_audio_started` /
   * `bot_audio_stopped`, the measured sample time). Events before the first turn
   * are not kept, except that bot audio already playing carries into it.
   */
  addEvent(name: TimelineEventName, atMs: number): void {
    this.checkOpen('addEvent');
    checkTime('addEvent', atMs);
    this.seen(atMs);
    if (name === 'bot_started_speaking' || name === 'bot_stopped_speaking')
      insertRecent(this.reports, { atMs, open: name === 'bot_started_speaking' }, (r) => r.atMs);
    if (name === 'bot_stream_end') insertRecent(this.streamEnds, atMs, (t) => t);
    if (name === 'bot_audio_started') this.startBurst(atMs);
    else if (name === 'bot_audio_stopped') this.stopBurst(atMs);
    else {
      const turn = this.turnAt(atMs);
      if (turn) this.mark(turn, name, atMs);
    }
    this.settle();
  }

  /** Merges an RTVI `metrics` message's data into the turn whose window holds `atMs`. */
  addBotMetrics(data: RtviMetricsInput, atMs: number): void {
    this.checkOpen('addBotMetrics');
    checkTime('addBotMetrics', atMs);
    this.seen(atMs);
    const turn = this.turnAt(atMs);
    if (turn) {
      const before = turn.botMetrics.dropped;
      accumulateBotMetrics(turn.botMetrics, data, this.maxServices);
      if (turn.botMetrics.dropped > before) bump(turn.dropped, 'bot_metrics', turn.botMetrics.dropped - before);
    }
    this.settle();
  }

  /** Lets the builder know time has moved on (completing turns that have settled) without an event. */
  advance(nowMs: number): void {
    checkTime('advance', nowMs);
    this.seen(nowMs);
    this.settle();
  }

  /** The session is over: closes the last window at `atMs` and completes every live turn. */
  end(atMs: number): void {
    if (this.ended) return;
    checkTime('end', atMs);
    const last = this.live[this.live.length - 1];
    if (last) last.windowEndAtMs = Math.max(atMs, last.sendAtMs);
    this.ended = true;
    while (this.live.length > 0) this.complete(true);
  }

  /** Completed turns since the last call, in turn order; the builder keeps no copy. */
  takeCompleted(): TurnTimeline[] {
    return this.completed.splice(0, this.completed.length);
  }

  /** A snapshot of a live (not yet completed) turn, e.g. to judge it before it settles. */
  peek(index: number): TurnTimeline | null {
    const turn = this.live.find((t) => t.index === index);
    return turn ? this.snapshot(turn, false) : null;
  }

  /** Turns held in memory (live, not yet completed). */
  get liveTurns(): number {
    return this.live.length;
  }

  /**
   * Reports that fell before every live turn's window and were not kept: events
   * before the first turn (a greeting's `bot_started_speaking`), or reports so
   * late that their turn had already settled (raise `settleMs` if this grows).
   */
  get unroutedReports(): number {
    return this.unrouted;
  }

  private startBurst(atMs: number): void {
    // A second start without a stop repeats the same burst; a start inside the last burst is stale.
    if (this.openBurst) return;
    if (this.lastBurst && this.lastBurst.offset_at_ms !== null && atMs < this.lastBurst.offset_at_ms) return;
    const burst: BotAudioBurst = { onset_at_ms: atMs, offset_at_ms: null };
    this.openBurst = burst;
    this.lastBurst = burst;
    // An owner-less burst (before the first turn) is still tracked: the first turn may interrupt it.
    const owner = this.turnAt(atMs, false);
    if (owner) {
      if (owner.bursts.length < this.maxBursts) owner.bursts.push(burst);
      else {
        // Keep the span (first onset → last offset) right: the last kept burst stands for the rest.
        this.openBurst = owner.bursts[owner.bursts.length - 1];
        this.openBurst.offset_at_ms = null;
        this.lastBurst = this.openBurst;
        bump(owner.dropped, 'bot_audio', 1);
      }
    }
    // A late onset report may precede turns already begun: it is the audio they start over.
    for (const t of this.live) {
      if (t.sendAtMs > atMs && (!t.carried || t.carried.onset_at_ms < atMs)) t.carried = this.openBurst;
    }
  }

  private stopBurst(atMs: number): void {
    const burst = this.openBurst;
    if (!burst || atMs < burst.onset_at_ms) return;
    burst.offset_at_ms = atMs;
    this.openBurst = null;
  }

  private mark(turn: LiveTurn, name: TimelineEventName, atMs: number): void {
    let list = turn.marks.get(name);
    if (!list) {
      list = [];
      turn.marks.set(name, list);
    }
    if (list.length >= this.maxMarks) {
      bump(turn.dropped, name, 1);
      return;
    }
    // Nearly always appended; a late report is slotted into place.
    let i = list.length;
    while (i > 0 && list[i - 1] > atMs) i--;
    list.splice(i, 0, atMs);
  }

  /**
   * The live turn whose window holds `atMs`. Windows tile the axis from the first
   * live send on (each ends where the next begins; the last is open-ended), so it
   * is the latest turn sent at or before `atMs`.
   */
  private turnAt(atMs: number, countMiss = true): LiveTurn | undefined {
    for (let i = this.live.length - 1; i >= 0; i--) {
      if (atMs >= this.live[i].sendAtMs) return this.live[i];
    }
    if (countMiss) this.unrouted++;
    return undefined;
  }

  private seen(atMs: number): void {
    if (atMs > this.latestMs) this.latestMs = atMs;
  }

  /** Completes settled turns from the oldest on; the newest turn's window is open, so it never settles here. */
  private settle(): void {
    while (this.live.length > 1) {
      if (this.live.length <= this.maxPending && !this.settled(this.live[0])) break;
      this.complete(false);
    }
  }

  private settled(t: LiveTurn): boolean {
    if (t.windowEndAtMs === null || this.latestMs < t.windowEndAtMs + this.settleMs) return false;
    if (t.carried && t.carried.offset_at_ms === null) return false;
    return t.bursts.every((b) => b.offset_at_ms !== null);
  }

  private complete(bySessionEnd: boolean): void {
    const t = this.live.shift();
    if (t) this.completed.push(this.snapshot(t, bySessionEnd));
  }

  private snapshot(t: LiveTurn, bySessionEnd: boolean): TurnTimeline {
    const end = t.windowEndAtMs ?? Infinity;
    return {
      ...snapshot(t, bySessionEnd),
      bot_audio_before_send: t.carried ? { ...t.carried } : null,
      bot_speaking_reports: around(this.reports, t.sendAtMs, end, (r) => r.atMs).map((r) => ({
        at_ms: r.atMs,
        open: r.open,
      })),
      bot_stream_ends: around(this.streamEnds, t.sendAtMs, end, (x) => x),
    };
  }

  private checkOpen(method: string): void {
    if (this.ended) throw new TimelineError(method, 'the session already ended (end() was called)');
  }
}

function snapshot(t: LiveTurn, bySessionEnd: boolean): TurnTimeline {
  const events: Partial<Record<TimelineEventName, number[]>> = {};
  for (const [name, list] of t.marks) events[name] = [...list];
  const dropped: TurnTimeline['dropped'] = {};
  for (const [name, n] of t.dropped) dropped[name as keyof TurnTimeline['dropped']] = n;
  const services = Object.create(null) as TurnTimeline['bot_metrics'];
  for (const [name, s] of Object.entries(t.botMetrics.services)) services[name] = { ...s };
  // Audio carried in from before the send only matters if it was still playing then.
  const carried =
    t.carried && (t.carried.offset_at_ms === null || t.carried.offset_at_ms > t.sendAtMs) ? { ...t.carried } : null;
  return {
    index: t.index,
    kind: t.kind,
    send_at_ms: t.sendAtMs,
    window_end_at_ms: t.windowEndAtMs,
    user_speech_start_at_ms: t.speechStartAtMs,
    user_speech_end_at_ms: t.speechEndAtMs,
    bot_audio_carried: carried,
    bot_audio: t.bursts.map((b) => ({ ...b })),
    events,
    dropped,
    bot_metrics: services,
    bot_tokens: t.botMetrics.tokens ? { ...t.botMetrics.tokens } : null,
    closed_by_session_end: bySessionEnd,
  };
}

/** Enough history for a turn's send to look back on; older entries belong to turns long settled. */
const RECENT = 64;

function insertRecent<T>(list: T[], item: T, timeOf: (x: T) => number): void {
  let i = list.length;
  while (i > 0 && timeOf(list[i - 1]) > timeOf(item)) i--;
  list.splice(i, 0, item);
  if (list.length > RECENT) list.shift();
}

/** The entries from the last one at or before `fromMs` up to `toMs`. */
function around<T>(list: readonly T[], fromMs: number, toMs: number, timeOf: (x: T) => number): T[] {
  let first = 0;
  for (let i = list.length - 1; i >= 0; i--) {
    if (timeOf(list[i]) <= fromMs) {
      first = i;
      break;
    }
  }
  return list.slice(first).filter((x) => timeOf(x) <= toMs);
}

function bump(map: Map<string, number>, key: string, n: number): void {
  map.set(key, (map.get(key) ?? 0) + n);
}

function checkTime(method: string, atMs: number): void {
  if (!Number.isFinite(atMs))
    throw new TimelineError(method, `time must be a finite number of ms, got ${String(atMs)}`);
}
