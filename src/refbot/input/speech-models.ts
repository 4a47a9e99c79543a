/**
 * What every connection of the bot shares to hear: one Silero VAD model (each
 * connection keeps its own recurrent state) and one PocketSphinx recognizer.
 * Both load on first use: a text-only bot loads neither.
 *
 * The recognizer runs one process per utterance. A long-running PocketSphinx
 * keeps adapting its cepstral normalization to what it heard before, so the
 * same question could be transcribed differently depending on the
 * conversation so far (and a fresh process heard its first question badly); a
 * reference bot must hear the same audio the same way every time, which is
 * worth the ~0.3 s model load per turn.
 */
import { SileroVad } from '../../audio/index.js';
import { createStt, type SttProvider } from '../../speech/index.js';

/**
 * Silence around an utterance for PocketSphinx. The utterance already carries
 * 300 ms before and 200 ms after the VAD's edges; half a second more is enough
 * for the recognizer and keeps each request short (speech's default is 2 s).
 */
const STT_PADDING_SECS = 0.5;

export class SpeechModels {
  private vadModel: Promise<SileroVad> | null = null;
  private recognizer: Promise<SttProvider> | null = null;
  private warmed = false;

  vad(): Promise<SileroVad> {
    this.vadModel ??= SileroVad.load();
    return this.vadModel;
  }

  stt(): Promise<SttProvider> {
    this.recognizer ??= createStt({ provider: 'sphinx', padding_secs: STT_PADDING_SECS, options: { persistent: false } });
    return this.recognizer;
  }

  /**
   * Runs the recognizer once on a moment of silence, so the model files are in
   * the page cache before the first utterance. Failures show up on the first
   * real transcription instead.
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
