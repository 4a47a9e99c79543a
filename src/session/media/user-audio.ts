import { EarshotError, errorMessage } from '../../core/errors.js';
import { audibleBounds, readWav, resample, type AudibleBounds } from '../../audio/index.js';
import type { TtsProvider } from '../../speech/index.js';
import type { Turn } from '../../scenario/index.js';

/**
 * The audio of each spoken user turn, made before the call starts: a turn's
 * `audio:` recording (any WAV: downmixed to mono, resampled to the stream's
 * rate) or its `user:` text synthesized at the scenario's `sample_rate` and
 * resampled to the rate the bot takes (`sendRate`: Pipecat does not resample
 * its input, so 24 kHz speech into a 16 kHz pipeline is heard as slowed-down
 * noise). Doing it up front keeps synthesis
 * time out of the conversation: a barge-in scheduled 800 ms into the bot's
 * speech starts at 800 ms, not 800 ms plus however long the TTS took.
 */
export class UserAudioError extends EarshotError {
  constructor(
    readonly turnIndex: number,
    readonly source: string,
    readonly problem: string,
  ) {
    super(`turn ${turnIndex}: ${source}: ${problem}`);
    this.name = 'UserAudioError';
  }
}

export interface TurnAudio {
  samples: Int16Array;
  sampleRate: number;
  /** What was said or played, for the trace. */
  label: string;
  /**
   * The voiced span when the samples' own energy would mislead the gate (noise over the voice); absent: found from the
   * samples.
   */
  voiced?: AudibleBounds | null;
}

/** Turns that speak: their user text or recording, in turn order (indexes into `turns`). */
export function spokenTurns(turns: readonly Turn[]): number[] {
  return turns.flatMap((t, i) => (t.audio !== undefined || t.user !== undefined ? [i] : []));
}

export async function loadTurnAudio(
  turn: Pick<Turn, 'user' | 'audio'>,
  turnIndex: number,
  options: {
    tts: () => Promise<TtsProvider>;
    voice?: string;
    sampleRate: number;
    sendRate?: number;
    signal?: AbortSignal;
  },
): Promise<TurnAudio> {
  const sendRate = options.sendRate ?? options.sampleRate;
  if (turn.audio !== undefined) {
    // readWav's own errors already name the file and what is wrong with it.
    const pcm = await readWav(turn.audio, { sampleRate: sendRate });
    if (!audibleBounds(pcm.samples, pcm.sampleRate)) {
      throw new UserAudioError(
        turnIndex,
        turn.audio,
        'the recording is silent (nothing above -50 dBFS): the bot would hear nothing',
      );
    }
    return { samples: pcm.samples, sampleRate: sendRate, label: turn.audio };
  }
  const text = turn.user ?? '';
  if (!text.trim()) throw new UserAudioError(turnIndex, 'user', 'empty text cannot be spoken');
  const tts = await options.tts();
  let out: Awaited<ReturnType<TtsProvider['synthesize']>>;
  try {
    out = await tts.synthesize(text, {
      sampleRate: options.sampleRate,
      signal: options.signal,
      ...(options.voice ? { voice: options.voice } : {}),
    });
  } catch (err) {
    if (options.signal?.aborted || err instanceof EarshotError) throw err;
    throw new UserAudioError(turnIndex, `${tts.name} speaking ${JSON.stringify(text)}`, errorMessage(err));
  }
  if (out.sampleRate !== options.sampleRate) {
    throw new UserAudioError(
      turnIndex,
      tts.name,
      `returned ${out.sampleRate} Hz audio, asked for ${options.sampleRate} Hz`,
    );
  }
  const samples = sendRate === out.sampleRate ? out.pcm : await resample(out.pcm, out.sampleRate, sendRate);
  return { samples, sampleRate: sendRate, label: text };
}
