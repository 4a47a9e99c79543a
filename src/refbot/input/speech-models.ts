/**
 * What every connection of the bot shares to hear: one Silero VAD model (each
 * connection keeps its own recurrent state) and one PocketSphinx recognizer.
 * Both load on first use: a text-only bot loads neither.
 *
 * The recognizer is speech's pool of long-lived `pocketsphinx_batch`
 * processes (no model load per turn; the first starts at `warm()`). It used to
 * be one process per utterance because a long-running
 * `pocketsphinx_continuous` keeps adapting its cepstral normalization to what
 * it heard before, so the same question could be transcribed differently
 * depending on the conversation so far. The batch decoder normalises each
 * utterance by its own mean (speech/stt/sphinx-batch.ts), so a reference bot
 * still hears the same audio the same way every time, without paying ~0.3 s
 * of model loading per turn. Streaming recognition (decoding while the user
 * still speaks) is not used: PocketSphinx can only stream with live CMN, which
 * is exactly the history dependence above; decoding a finished 2–3 s question
 * takes a few hundred milliseconds once the model is loaded.
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
    this.recognizer ??= createStt({ provider: 'sphinx', padding_secs: STT_PADDING_SECS, options: { mode: 'pool' } });
    return this.recognizer;
  }

  /**
   * Runs the recognizer once on a moment of silence, so a pooled process has
   * loaded its model before the first utterance. Failures show up on the
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
    await Promise.all([
      vad?.then((v) => v.close()).catch(() => undefined),
      stt?.then((s) => s.close()).catch(() => undefined),
    ]);
  }
}
