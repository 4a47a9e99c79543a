/**
 * The transcription process (model-process.ts): the transformers.js ASR
 * pipeline, loaded once from the model store.
 */
import { serveModel } from '../model-child.js';
import { loadTransformers } from '../onnx.js';

export interface AsrLoad {
  modelsDir: string;
  task: 'automatic-speech-recognition';
  /** Absolute model folder, passed as the model id so nothing resolves against the hub. */
  modelPath: string;
  options: Record<string, unknown>;
}

export interface AsrRequest {
  audio: Float32Array;
  kwargs: Record<string, unknown>;
}

type Asr = ((
  audio: Float32Array,
  kwargs: Record<string, unknown>,
) => Promise<{ text: string } | { text: string }[]>) & {
  dispose(): Promise<unknown>;
};

serveModel<AsrLoad, AsrRequest, string>(async (data) => {
  const { pipeline } = await loadTransformers(data.modelsDir);
  const asr = (await pipeline(data.task, data.modelPath, data.options)) as unknown as Asr;
  return {
    async call({ audio, kwargs }) {
      const output = await asr(audio, kwargs);
      return Array.isArray(output) ? output.map((o) => o.text).join(' ') : output.text;
    },
    async dispose() {
      await asr.dispose();
    },
  };
});
