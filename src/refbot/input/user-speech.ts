/**
 * The user's speech in RTVI terms: the VAD's decisions become
 * `user-started-speaking` (and the raw `vad-*` messages when asked), a
 * barge-in when the bot is replying, truth lines with the sample-accurate
 * edges; each ended utterance is transcribed by PocketSphinx, one after
 * another, and handed over as a user turn with `user-transcription` and
 * `user-stopped-speaking` (the turn ends once transcribed, as with Pipecat's
 * default turn strategy). An empty transcription ends the turn with no reply.
 */
import type { Clock } from '../../core/clock.js';
import { errorMessage } from '../../core/errors.js';
import type { ServerMessage } from '../../protocol/index.js';
import { IncomingAudio } from './incoming-audio.js';
import type { SpeechModels } from './speech-models.js';
import type { SpeechEdge, Utterance, VadSettings } from './utterance-detector.js';
import type { TruthLog } from '../truth.js';

export const STT_PROCESSOR = 'SphinxSTTService#0';

export interface UserSpeechHost {
  conn: number;
  clock: Clock;
  models: SpeechModels;
  truth: TruthLog;
  vad: VadSettings;
  /** eval-configure asked for the raw VAD messages. */
  vadEvents: () => boolean;
  /** The number the next user turn will have (for truth lines). */
  nextTurn: () => number;
  /** A reply is in flight: speech now is a barge-in. */
  replying: () => boolean;
  send: (message: ServerMessage) => void;
  bargeIn: (edge: SpeechEdge) => void;
  /** A transcribed utterance: send `preamble`, then answer it. */
  answer: (text: string, userEndMs: number | null, preamble: ServerMessage[]) => void;
  reportError: (text: string) => void;
  /**
   * `--no-yield-to-backchannel`: speech over a reply is a barge-in only once it
   * has lasted this long; shorter speech ("right", "mm-hmm") is a backchannel,
   * neither yielded to nor answered. Absent: any speech over a reply barges in.
   */
  backchannelMaxMs?: number;
}

export class UserSpeech {
  private readonly input: IncomingAudio;
  /** Utterances are transcribed and answered one after another. */
  private chain: Promise<void> = Promise.resolve();
  private closed = false;
  /** A barge-in held back while the speech might still be a backchannel. */
  private held: NodeJS.Timeout | null = null;

  constructor(private readonly host: UserSpeechHost) {
    this.input = new IncomingAudio({
      clock: host.clock,
      models: host.models,
      vad: host.vad,
      onSpeechStart: (edge) => this.onSpeechStart(edge),
      onSpeechEnd: (u) => this.onSpeechEnd(u),
      onError: (err) => host.reportError(`audio input failed: ${errorMessage(err)}`),
    });
  }

  push(pcm: Int16Array, sampleRate: number, numChannels: number, arrivedMs: number): void {
    this.input.push(pcm, sampleRate, numChannels, arrivedMs);
  }

  close(): void {
    this.closed = true;
    if (this.held) clearTimeout(this.held);
    this.input.close();
  }

  private onSpeechStart(edge: SpeechEdge): void {
    const { host } = this;
    const bargeIn = host.replying();
    host.truth.write({
      event: 'user_speech_started',
      conn: host.conn,
      turn: host.nextTurn(),
      in_sample_rate: this.input.sampleRate ?? 0,
      in_vad_start_sample: edge.inVadSample,
      in_voiced_start_sample: edge.inVoicedSample,
      voiced_start_ms: edge.voicedMs,
      detected_ms: edge.detectedMs,
      barge_in: bargeIn,
    });
    if (host.vadEvents()) host.send({ type: 'vad-user-started-speaking' });
    host.send({ type: 'user-started-speaking' });
    if (bargeIn && host.backchannelMaxMs !== undefined) {
      this.held = setTimeout(() => {
        this.held = null;
        if (host.replying()) host.bargeIn(edge);
      }, host.backchannelMaxMs);
    } else if (bargeIn) host.bargeIn(edge);
  }

  private onSpeechEnd(utterance: Utterance): void {
    const { host } = this;
    const { end } = utterance;
    host.truth.write({
      event: 'user_speech_stopped',
      conn: host.conn,
      turn: host.nextTurn(),
      in_sample_rate: utterance.sampleRate,
      in_vad_end_sample: end.inVadSample,
      in_voiced_end_sample: end.inVoicedSample,
      voiced_end_ms: end.voicedMs,
      received_ms: end.receivedMs,
      detected_ms: end.detectedMs,
    });
    if (host.vadEvents()) host.send({ type: 'vad-user-stopped-speaking' });
    if (this.held) {
      // Ended before it could be a barge-in: a backchannel, not the caller's turn.
      clearTimeout(this.held);
      this.held = null;
      host.send({ type: 'user-stopped-speaking' });
      return;
    }
    this.chain = this.chain
      .then(() => this.transcribe(utterance))
      .catch((err: unknown) => host.reportError(`transcription failed: ${errorMessage(err)}`));
  }

  private async transcribe(utterance: Utterance): Promise<void> {
    const { host } = this;
    const stt = await host.models.stt();
    const started = host.clock.now();
    let text = '';
    try {
      text = (await stt.transcribe(utterance.pcm, utterance.sampleRate)).text.trim();
    } finally {
      const value = Math.round(host.clock.now() - started) / 1000;
      host.send({
        type: 'metrics',
        data: {
          ttfb: [{ processor: STT_PROCESSOR, model: stt.model, value }],
          processing: [{ processor: STT_PROCESSOR, model: stt.model, value }],
        },
      });
      if (!text) host.send({ type: 'user-stopped-speaking' });
    }
    if (!text || this.closed) return;
    host.truth.write({
      event: 'user_transcription',
      conn: host.conn,
      turn: host.nextTurn(),
      text,
      stt_ms: host.clock.now() - started,
    });
    const transcription: ServerMessage = {
      type: 'user-transcription',
      data: { text, final: true, user_id: '', timestamp: new Date().toISOString() },
    };
    host.answer(text, utterance.end.voicedMs, [transcription, { type: 'user-stopped-speaking' }]);
  }
}
