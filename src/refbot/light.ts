/**
 * The reference bot's light mode (`earshot refbot --light`), for load tests of
 * the harness (bench/concurrency.ts): no Silero VAD, no PocketSphinx, no brain.
 * It hears a turn end with the energy gate alone (the same −50 dBFS / 5 ms gate
 * earshot measures user speech with, on the same samples), and answers every
 * turn with one canned reply synthesized once at start-up, placed so that its
 * first audible sample goes out `replyOffsetMs` after the end of the user's
 * voiced speech. Its truth lines (`user_speech_started`/`_stopped`,
 * `bot_audio_started`/`_stopped`, as truth.ts defines them) say exactly when
 * each of those samples played and went out, so a harness's voice-to-voice
 * measurement can be held against them as calibration does. A hundred such
 * connections cost the bot process little, so the harness is what is loaded.
 *
 * It does not yield to barge-in, take text or DTMF, or greet.
 */
import type { Clock } from '../core/clock.js';
import type { TimerDriver } from '../core/timers.js';
import { audibleBounds, DEFAULT_GATE } from '../audio/index.js';
import { RTVI_PROTOCOL_VERSION, type CodecName, type ServerMessage, type WirePeer } from '../protocol/index.js';
import type { TruthLog } from './truth.js';

const FRAME_MS = 20;

export interface LightOptions {
  /**
   * First audible reply sample after the end of the user's voiced speech (default 800 ms; at least the end silence, the
   * reply's leading silence and a frame).
   */
  replyOffsetMs: number;
  /**
   * Silence after the last audible sample that ends a turn (default 300 ms; the reply is placed from the voiced end,
   * not from here).
   */
  endSilenceMs: number;
}

export const DEFAULT_LIGHT: LightOptions = { replyOffsetMs: 800, endSilenceMs: 300 };

/**
 * The least offset that can be kept: the turn is known only `endSilenceMs`
 * after the voiced end, and the reply's first frames (its leading silence)
 * must go out before its first audible sample; a frame of slack.
 */
export function minimumReplyOffsetMs(light: LightOptions, reply: Int16Array, sampleRate: number): number {
  const lead = audibleBounds(reply, sampleRate, DEFAULT_GATE)?.first ?? 0;
  return light.endSilenceMs + (lead * 1000) / sampleRate + FRAME_MS;
}

export interface LightDeps {
  conn: number;
  peer: WirePeer;
  codec: CodecName;
  clock: Clock;
  timers: TimerDriver;
  truth: TruthLog;
  /** The canned reply at `botSampleRate`. */
  reply: Int16Array;
  botSampleRate: number;
  light: LightOptions;
  log: (line: string) => void;
}

export class LightConversation {
  private inSamples = 0;
  private outSamples = 0;
  private turn = 0;
  private replies = 0;
  /** The user turn being heard: its last audible sample (index and play time). */
  private hearing: { lastSample: number; lastMs: number } | null = null;
  private speaking = false;
  private readonly cancels = new Set<() => void>();
  private readonly audible: { first: number; end: number };

  constructor(private readonly d: LightDeps) {
    const bounds = audibleBounds(d.reply, d.botSampleRate, DEFAULT_GATE);
    if (!bounds) throw new Error('the light reply has no audible sample');
    this.audible = bounds;
  }

  get id(): number {
    return this.d.conn;
  }

  /** Reads the connection until it closes. */
  async run(): Promise<void> {
    const { peer, truth, conn } = this.d;
    truth.write({ event: 'connection_open', conn, target: peer.target, flags: { ...peer.flags } });
    for await (const item of peer.connection) {
      if (item.kind === 'rtvi' && item.message.type === 'client-ready') {
        this.send({
          type: 'bot-ready',
          id: item.message.id,
          data: { version: RTVI_PROTOCOL_VERSION, about: { library: 'earshot-refbot (light)' } },
        });
        truth.write({ event: 'bot_ready', conn });
      } else if (item.kind === 'audio') this.hear(item.pcm, item.sampleRate, item.at);
    }
    for (const c of this.cancels) c();
    const info = await peer.connection.closed;
    truth.write({ event: 'connection_closed', conn, code: info.code, by_peer: info.byPeer });
  }

  /** Stops replying and closes the connection. */
  shutdown(): void {
    for (const c of this.cancels) c();
    void this.d.peer.connection.close(1001, 'refbot closing');
  }

  private send(message: ServerMessage): void {
    this.d.peer.connection.send(message);
  }

  /** One incoming frame, played on arrival: sample s of it plays at `atMs` + its offset. */
  private hear(pcm: Int16Array, rate: number, atMs: number): void {
    const from = this.inSamples;
    this.inSamples += pcm.length;
    const msOf = (s: number): number => atMs + ((s - from) * 1000) / rate;
    const b = audibleBounds(pcm, rate, DEFAULT_GATE);
    const { truth, conn } = this.d;
    if (b) {
      if (!this.hearing) {
        this.turn++;
        truth.write({
          event: 'user_speech_started',
          conn,
          turn: this.turn,
          in_sample_rate: rate,
          in_vad_start_sample: null,
          in_voiced_start_sample: from + b.first,
          voiced_start_ms: msOf(from + b.first),
          detected_ms: this.d.clock.now(),
          barge_in: this.speaking,
        });
        this.send({ type: 'user-started-speaking' });
      }
      this.hearing = { lastSample: from + b.end, lastMs: msOf(from + b.end) };
      return;
    }
    const h = this.hearing;
    if (!h || atMs - h.lastMs < this.d.light.endSilenceMs) return;
    this.hearing = null;
    truth.write({
      event: 'user_speech_stopped',
      conn,
      turn: this.turn,
      in_sample_rate: rate,
      in_vad_end_sample: null,
      in_voiced_end_sample: h.lastSample,
      voiced_end_ms: h.lastMs,
      received_ms: null,
      detected_ms: this.d.clock.now(),
    });
    this.send({ type: 'user-stopped-speaking' });
    this.speak(this.turn, h.lastMs);
  }

  /** The canned reply, frames due so that its first audible sample is due `replyOffsetMs` after `userEndMs`. */
  private speak(turn: number, userEndMs: number): void {
    const { botSampleRate: rate, reply, timers, truth, conn, clock } = this.d;
    const spf = (rate * FRAME_MS) / 1000;
    const frames = Math.ceil(reply.length / spf);
    const startMs = Math.max(clock.now(), userEndMs + this.d.light.replyOffsetMs - (this.audible.first * 1000) / rate);
    const replyNo = ++this.replies;
    const firstOut = this.outSamples;
    const audibleFrame = Math.floor(this.audible.first / spf);
    const endFrame = Math.floor((this.audible.end - 1) / spf);
    const onWire = this.d.codec === 'protobuf' || this.d.peer.flags.captureBotAudio === true;
    let firstSentMs = 0;
    let audibleEndMs = 0;
    let index = 0;
    const next = (): void => {
      const cancel = timers.at(startMs + index * FRAME_MS, () => {
        this.cancels.delete(cancel);
        if (!this.d.peer.connection.isOpen) return;
        const i = index++;
        const pcm = reply.subarray(i * spf, (i + 1) * spf);
        const sentMs = clock.now();
        if (i === 0) {
          firstSentMs = sentMs;
          this.speaking = true;
          this.send({ type: 'bot-started-speaking' });
        }
        if (onWire) this.d.peer.connection.sendAudio(pcm, rate);
        this.outSamples += pcm.length;
        if (i === audibleFrame) {
          const audibleMs = sentMs + ((this.audible.first - i * spf) * 1000) / rate;
          truth.write({
            event: 'bot_audio_started',
            conn,
            reply: replyNo,
            turn,
            out_sample_rate: rate,
            out_first_sample: firstOut,
            first_sent_ms: firstSentMs,
            out_first_audible_sample: firstOut + this.audible.first,
            audible_ms: audibleMs,
            voice_to_voice_ms: audibleMs - userEndMs,
            response_delay_ms: 0,
            on_wire: onWire,
          });
        }
        if (i === endFrame) audibleEndMs = sentMs + ((this.audible.end - i * spf) * 1000) / rate;
        if (index < frames) return next();
        this.speaking = false;
        this.send({ type: 'bot-stopped-speaking' });
        truth.write({
          event: 'bot_audio_stopped',
          conn,
          reply: replyNo,
          reason: 'completed',
          out_sample_rate: rate,
          out_end_sample: this.outSamples,
          stopped_ms: sentMs + (pcm.length * 1000) / rate,
          out_audible_end_sample: firstOut + this.audible.end,
          audible_end_ms: audibleEndMs,
          interruption_ms: null,
          stop_after_detect_ms: null,
        });
      });
      this.cancels.add(cancel);
    };
    next();
  }
}
