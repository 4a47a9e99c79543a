/**
 * The reference bot's ground-truth log (`--truth-log FILE`): one JSON object
 * per line, written the moment the bot knows the fact, so `earshot calibrate`
 * can hold earshot's measurements against what really happened.
 *
 * TIMES. Every line has `t_ms`, the bot's monotonic clock (`performance.now()`
 * of the bot's process, or the injected Clock in-process), and `epoch_ms`
 * (`performance.timeOrigin + t_ms`, i.e. Unix time in ms with sub-ms
 * precision). A harness running the bot in its own process (`startRefbot`)
 * shares `t_ms` directly; a harness talking to a bot subprocess compares
 * `epoch_ms` with its own `performance.timeOrigin + performance.now()` (both
 * read the same system clock; loopback transit is well under 1 ms).
 *
 * SAMPLE POSITIONS make the log independent of either clock:
 *
 * - `in_*` positions count the samples of the connection's incoming audio
 *   stream (every `raw-audio` / AudioRawFrame received, mono, in order, from 0
 *   at the first sample received on the connection), at `in_sample_rate`. A
 *   harness that streams the microphone continuously knows the index of every
 *   sample it sent, so `in_voiced_end_sample` names exactly which of its
 *   samples the bot took as the end of the user's speech.
 * - `out_*` positions count the samples of the bot's outgoing audio stream on
 *   the connection (every frame it sent or, when the wire carries no audio,
 *   would have sent; no silence between replies), at `out_sample_rate`. The
 *   n-th bot audio sample a harness receives is `out` sample n.
 *
 * THE USER'S SIDE. The bot's virtual microphone hands incoming audio to its VAD
 * in 20 ms frames: a frame that arrives on its own (a harness streaming in real
 * time) is played the moment it arrives; larger uploads are played out at real
 * time. The "play time" of incoming sample s is when the frame holding it was
 * played, plus s's offset in that frame — for a real-time stream, the frame's
 * arrival plus the offset, i.e. the harness's due time of that sample plus
 * transit. The *voiced* start/end are the energy gate (audio/level.ts,
 * DEFAULT_GATE: −50 dBFS over 5 ms) applied to the audio around what the VAD
 * detected: the same definition earshot uses for the start and end of user
 * speech, so on the same samples both sides name the same sample.
 *
 * THE BOT'S SIDE. Bot audio goes out in 20 ms frames at real-time pace; the
 * "send time" of outgoing sample k is when the frame holding it was handed to
 * the socket, plus k's offset in the frame (a frame is sent when its first
 * sample is due to play). The first *audible* sample is the energy gate's
 * first sample of the reply's audio (Flite starts with a little silence).
 *
 * DERIVED (per turn, on the bot's clock): `voice_to_voice_ms` = send time of
 * the reply's first audible sample − play time of the end of the user's voiced
 * speech (`user_speech_stopped.voiced_end_ms`); `interruption_ms` = end of the
 * bot's last audible sample before it stopped − play time of the start of the
 * user's interrupting voiced speech (`user_speech_started.voiced_start_ms`);
 * when the user began after that sample (in a pause between sentences, with
 * `--sentence-gap-ms`: the bot was sending the pause's silence), the end of the
 * last frame sent (`stopped_ms`) instead, and `in_pause` says so.
 */
import { closeSync, openSync, writeSync } from 'node:fs';
import type { Clock } from '../core/clock.js';
import { RefbotError } from './errors.js';

/** Fields every line has. */
export interface TruthBase {
  event: string;
  t_ms: number;
  epoch_ms: number;
  /** Connection id (1, 2, ... in accept order); absent for server-wide lines. */
  conn?: number;
}

export type TruthEvent =
  /** The server listens. */
  | {
      event: 'listening';
      url: string;
      wire: string;
      response_delay_ms: number;
      sentence_gap_ms: number;
      tts_lead_in_ms: number;
      rtvi: boolean;
      faults: string[];
      pid: number;
    }
  | { event: 'connection_open'; conn: number; target: string; flags: Record<string, unknown> }
  | { event: 'bot_ready'; conn: number }
  /**
   * The VAD confirmed user speech. `in_vad_start_sample`: first sample of the
   * VAD's first speech frame; `in_voiced_start_sample`: first audible sample
   * (gate) in the 500 ms before it and up to now; `voiced_start_ms` its play
   * time; `detected_ms` when the VAD decided (after its 96 ms confirmation).
   * `barge_in` is true when the bot was mid-reply (it then stops: see
   * `bot_audio_stopped`).
   */
  | {
      event: 'user_speech_started';
      conn: number;
      turn: number;
      in_sample_rate: number;
      in_vad_start_sample: number | null;
      in_voiced_start_sample: number | null;
      voiced_start_ms: number | null;
      detected_ms: number;
      barge_in: boolean;
    }
  /**
   * The VAD ended the utterance. `in_vad_end_sample`: one past the last sample
   * of the VAD's last speech frame; `in_voiced_end_sample`: one past the last
   * audible sample (gate) of the utterance; `voiced_end_ms`: play time of that
   * end instant (when the last audible sample finished playing);
   * `received_ms`: arrival of the message that carried the last audible
   * sample; `detected_ms`: when the VAD decided (after its silence wait).
   */
  | {
      event: 'user_speech_stopped';
      conn: number;
      turn: number;
      in_sample_rate: number;
      in_vad_end_sample: number | null;
      in_voiced_end_sample: number | null;
      voiced_end_ms: number | null;
      received_ms: number | null;
      detected_ms: number;
    }
  | { event: 'user_transcription'; conn: number; turn: number; text: string; stt_ms: number }
  /** A user turn the bot answers (`source` is the brain's: `rule:capital-japan`, `keypad:1`...). */
  | { event: 'user_turn'; conn: number; turn: number; input: 'text' | 'dtmf' | 'audio'; text: string; source: string }
  /**
   * The reply's first audible sample went out. `out_first_sample`: the reply's
   * first sample (first frame), sent at `first_sent_ms`;
   * `out_first_audible_sample` / `audible_ms`: the gate's first audible sample
   * and its send time. `voice_to_voice_ms` is null for replies to no speech
   * (greeting, text, DTMF). `on_wire` is false when the connection does not
   * carry bot audio (pipecat-eval without capture_bot_audio).
   */
  | {
      event: 'bot_audio_started';
      conn: number;
      reply: number;
      turn: number | null;
      out_sample_rate: number;
      out_first_sample: number;
      first_sent_ms: number;
      out_first_audible_sample: number;
      audible_ms: number;
      voice_to_voice_ms: number | null;
      response_delay_ms: number;
      on_wire: boolean;
    }
  /**
   * The reply's audio ended. `out_end_sample`: one past the last sample sent;
   * `stopped_ms`: when it finished playing (send time of the last frame + its
   * length); `out_audible_end_sample` / `audible_end_ms`: one past the last
   * audible sample sent, and when it finished playing. `reason`: `completed`,
   * `barge_in` (the VAD heard the user; `interruption_ms` set), `interrupted`
   * (text or DTMF input cut it), `closed` (the connection ended), `fault`.
   */
  | {
      event: 'bot_audio_stopped';
      conn: number;
      reply: number;
      reason: 'completed' | 'barge_in' | 'interrupted' | 'closed' | 'fault';
      out_sample_rate: number;
      out_end_sample: number;
      stopped_ms: number;
      out_audible_end_sample: number | null;
      audible_end_ms: number | null;
      interruption_ms: number | null;
      /**
       * The user began after the last audible sample (in a pause between sentences): `interruption_ms` runs to
       * `stopped_ms`.
       */
      in_pause?: boolean;
      /** Time from the VAD's barge-in decision to the end of the last frame sent. */
      stop_after_detect_ms: number | null;
    }
  | { event: 'bot_interrupted'; conn: number; cause: 'barge_in' | 'text' | 'dtmf' }
  /** A Pipecat bot's on_client_disconnected would run here (the client asked with trigger_disconnect). */
  | { event: 'disconnect_handler'; conn: number; exit: boolean }
  | { event: 'fault'; conn?: number; fault: string; action: string }
  | { event: 'connection_closed'; conn: number; code: number; by_peer: boolean }
  | { event: 'exit'; reason: string; exit_code: number };

type Line = TruthEvent & { t_ms?: number };

/** Appends lines synchronously (a crash fault exits right after its last line). A null path logs nothing. */
export class TruthLog {
  private fd: number | null;

  constructor(
    readonly path: string | null,
    private readonly clock: Clock,
  ) {
    if (path === null) {
      this.fd = null;
      return;
    }
    try {
      this.fd = openSync(path, 'a');
    } catch (err) {
      throw new RefbotError(`cannot open the truth log ${path}: ${err instanceof Error ? err.message : String(err)}`, {
        exitCode: 2,
      });
    }
  }

  get enabled(): boolean {
    return this.fd !== null;
  }

  /** `t_ms` defaults to now; pass the time the fact happened when it is known more exactly. */
  write(line: Line): void {
    if (this.fd === null) return;
    const t = line.t_ms ?? this.clock.now();
    const { event, t_ms: _t, ...rest } = line;
    const record = { event, t_ms: round3(t), epoch_ms: round3(performance.timeOrigin + t), ...roundTimes(rest) };
    try {
      writeSync(this.fd, `${JSON.stringify(record)}\n`);
    } catch {
      // A full disk must not take the bot down mid-conversation; the log is best effort from here.
      this.close();
    }
  }

  close(): void {
    if (this.fd === null) return;
    try {
      closeSync(this.fd);
    } catch {
      // already closed
    }
    this.fd = null;
  }
}

function round3(x: number): number {
  return Math.round(x * 1000) / 1000;
}

/** Times (`*_ms`) to µs precision; sample counts stay integers. */
function roundTimes(fields: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(fields)) out[k] = typeof v === 'number' && k.endsWith('_ms') ? round3(v) : v;
  return out;
}
