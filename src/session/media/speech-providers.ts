import type { SpeechProviders } from '../../results/types.js';
import type { SttProvider, TtsProvider } from '../../speech/index.js';

/**
 * Which providers a run's speech went through, for the result line and the
 * trace: `kokoro:af_heart`, `whisper:whisper-tiny.en`, and, when a model
 * folder holds generated fixtures instead of the real weights, what they are,
 * so nobody reads a fixture's transcript as a real model's.
 */
export class SpeechProviderLog {
  private spokenBy: string | undefined;
  private transcribedBy: string | undefined;
  private readonly fixtures: Record<string, string> = {};

  spoken(tts: TtsProvider): void {
    this.spokenBy = `${tts.name}:${tts.defaultVoice}`;
    if (tts.origin) this.fixtures[this.spokenBy] = tts.origin;
  }

  heard(stt: SttProvider, trace: (line: string) => void): void {
    this.transcribedBy = `${stt.name}:${stt.model}`;
    if (stt.origin) {
      this.fixtures[this.transcribedBy] = stt.origin;
      trace(`media: ${this.transcribedBy} is a ${stt.origin}`);
    }
  }

  result(): SpeechProviders | undefined {
    if (!this.spokenBy && !this.transcribedBy) return undefined;
    return {
      ...(this.spokenBy ? { spoken_by: this.spokenBy } : {}),
      ...(this.transcribedBy ? { transcribed_by: this.transcribedBy } : {}),
      ...(Object.keys(this.fixtures).length ? { fixtures: { ...this.fixtures } } : {}),
    };
  }
}
