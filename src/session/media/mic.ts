import type {
  AudibleBounds,
  CallRecorder,
  MicStream,
  MicStreamStats,
  Pacer,
  UtteranceTiming,
} from '../../audio/index.js';
import { ThreadPacer, type RemoteStream } from '../../pacing/index.js';
import type { ClientConnection, WirePayload } from '../../protocol/index.js';

/**
 * earshot as the caller's microphone: from `start` on, one 20 ms frame per
 * tick on the process's shared pacer, silence between utterances, each frame
 * encoded by the connection's codec (`raw-audio` on pipecat-eval, an
 * AudioRawFrame on protobuf) ahead of its deadline and sent on it. Every
 * frame sent also goes to the recording's user channel at the time it was
 * sent, so the recording holds exactly what the bot was given.
 *
 * On a `ThreadPacer` (real runs) the frames are paced and sent on the pacer
 * thread, on a connection opened there, and reach the recording once that
 * thread reports them sent; on a `Pacer` (manual-time tests) all of it happens
 * here, in the tick.
 */
export interface MicrophoneOptions {
  pacer: Pacer | ThreadPacer;
  sampleRate: number;
  /** Session start on the pacer's clock: the recorder's timeline is relative to it. */
  t0Ms: number;
  recorder: CallRecorder | null;
  label: string;
  signal: AbortSignal;
}

export interface Spoken {
  /** Due time of the utterance's first frame (absolute, on the pacer's clock). */
  firstFrameDueMs: number;
  /** Resolves once the last frame was sent (or the stream ended), with the voiced span's due times. */
  finished: Promise<UtteranceTiming>;
}

export class Microphone {
  private stream: MicStream<WirePayload | null> | RemoteStream | null = null;

  constructor(private readonly opts: MicrophoneOptions) {}

  get started(): boolean {
    return this.stream !== null;
  }

  start(connection: ClientConnection): void {
    if (this.stream) return;
    const { sampleRate, t0Ms } = this.opts;
    let recorder = this.opts.recorder;
    const record = (samples: Int16Array, rate: number, sentMs: number): void => {
      try {
        recorder?.addUser(samples, rate, sentMs - t0Ms);
      } catch {
        // A failing recording must not stop the microphone (a throwing sink ends its stream).
        recorder = null;
      }
    };
    const pacer = this.opts.pacer;
    if (pacer instanceof ThreadPacer) {
      this.stream = pacer.openStream(connection, {
        sampleRate,
        label: this.opts.label,
        signal: this.opts.signal,
        onFrame: (f) => record(f.samples, f.sampleRate, f.sentMs),
      });
      return;
    }
    this.stream = pacer.createStream<WirePayload | null>({
      sampleRate,
      label: this.opts.label,
      signal: this.opts.signal,
      encode: (frame) => connection.codec.encode({ kind: 'audio', pcm: frame.samples, sampleRate: frame.sampleRate }),
      sink: (frame) => {
        // A closed connection ends the session soon; until then frames are simply not sent.
        if (frame.payload !== null) connection.sendRaw(frame.payload);
        record(frame.samples, frame.sampleRate, frame.sentMs);
      },
    });
  }

  /** Queues an utterance and resolves once its first frame is on the air. */
  async say(samples: Int16Array, label: string, signal: AbortSignal, voiced?: AudibleBounds | null): Promise<Spoken> {
    if (!this.stream) throw new Error('the microphone has not started');
    signal.throwIfAborted();
    const utterance = this.stream.enqueue(samples, { label, ...(voiced !== undefined ? { voiced } : {}) });
    const onAbort = (): void => utterance.cancel();
    signal.addEventListener('abort', onAbort, { once: true });
    void utterance.finished.then(() => signal.removeEventListener('abort', onAbort));
    const started = await utterance.started;
    signal.throwIfAborted();
    if (started.firstFrameDueMs === null)
      throw new Error(
        `the microphone stopped before '${label}' could be spoken (${this.stream.stats().end?.reason ?? 'ended'})`,
      );
    return { firstFrameDueMs: started.firstFrameDueMs, finished: utterance.finished };
  }

  /** Stops streaming; the stats say how punctual it was. */
  async stop(): Promise<MicStreamStats | null> {
    const stream = this.stream;
    if (!stream) return null;
    stream.stop();
    return stream.ended;
  }
}
