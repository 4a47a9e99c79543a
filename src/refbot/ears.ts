/**
 * What every connection of the bot shares to hear: one Silero VAD model (each
 * connection keeps its own recurrent state) and one PocketSphinx recognizer,
 * kept running between utterances so a turn does not pay for loading the
 * acoustic model. Both load on first use: a text-only bot loads neither.
 */
import { SileroVad } from '../audio/index.js';
import { createStt, type SttProvider } from '../speech/index.js';

/**
 * Silence around an utterance for PocketSphinx. The utterance already carries
 * 300 ms before and 200 ms after the VAD's edges; half a second more is enough
 * for the recognizer and keeps each request short (speech's default is 2 s).
 */
const STT_PADDING_SECS = 0.5;

export class Ears {
  private vadModel: Promise<SileroVad> | null = null;
  private recognizer: Promise<SttProvider> | null = null;
  private warmed = false;

  vad(): Promise<SileroVad> {
    this.vadModel ??= SileroVad.load();
    return this.vadModel;
  }

  stt(): Promise<SttProvider> {
    this.recognizer ??= createStt({ provider: 'sphinx', padding_secs: STT_PADDING_SECS, options: { persistent: true } });
    return this.recognizer;
  }

  /**
   * Starts the recognizer's process with a moment of silence, so the first
   * utterance does not wait for the model to load. Failures show up on the
   * first real transcription instead.
   */
  warm(): void {
    if (this.warmed) return;
    this.warmed = true;
    void this.stt()
      .then((stt) => stt.transcribe(new Int16Array(1600), 16000))
      .catch(() => undefined);
  }

  async close(): Promise<void> {
    const [vad, stt] = [this.vadModel, this.recognizer];
    this.vadModel = null;
    this.recognizer = null;
    await Promise.all([vad?.then((v) => v.close()).catch(() => undefined), stt?.then((s) => s.close()).catch(() => undefined)]);
  }
}
