/**
 * The Kokoro process (model-process.ts): kokoro-js on transformers.js, loaded
 * once from the model store; each call synthesizes one utterance at 24 kHz.
 */
import { serveModel } from '../model-child.js';
import { loadTransformers } from '../onnx.js';

export interface KokoroLoad {
  modelsDir: string;
  /** Absolute model folder, passed as the model id so nothing resolves against the hub. */
  modelPath: string;
  dtype: string;
  device: string;
}

export interface KokoroRequest {
  text: string;
  voice: string;
  speed: number;
}

export interface KokoroAudio {
  audio: Float32Array;
  sampleRate: number;
}

serveModel<KokoroLoad, KokoroRequest, KokoroAudio>(async (data) => {
  await loadTransformers(data.modelsDir);
  // kokoro-js's phonemizer (espeak-ng in Emscripten) adds process-wide exception listeners that rethrow: harmless
  // here, in a process that only synthesizes.
  const { KokoroTTS } = await import('kokoro-js');
  // kokoro-js types `device` as its browser set; transformers accepts cpu and cuda in Node.
  const tts = await KokoroTTS.from_pretrained(data.modelPath, {
    dtype: data.dtype as 'q8',
    device: data.device as 'cpu',
  });
  return {
    async call({ text, voice, speed }) {
      // kokoro-js checks the voice against the tables it ships (earshot checked it first).
      const out = await tts.generate(text, { voice: voice as 'af_heart', speed });
      return { audio: out.audio, sampleRate: out.sampling_rate };
    },
    async dispose() {},
  };
});
