/**
 * Full-size fixtures: the real architectures and dimensions with seeded
 * random weights, so loading and running them costs what the real models
 * cost (time, memory, file size) while saying nothing useful. fp32 and q8
 * graphs of one seed hold the same weights; q8 stores every matrix product
 * against a weight as ONNX Runtime's dynamic quantization does.
 */
import type { Dtype, ModelProvider, ModelSpec } from '../../models/registry.js';
import type { FixtureFiles } from '../files.js';
import { kokoroFullFiles, kokoroGraphs } from './kokoro.js';
import { moonshineFullFiles, moonshineGraphs } from './moonshine.js';
import type { Precision } from './net.js';
import { whisperFullFiles, whisperGraphs } from './whisper.js';

export const FULL_DESCRIPTION: Record<ModelProvider, string> = {
  whisper: 'full-size Whisper architecture, seeded random weights: compute cost, not accuracy',
  moonshine: 'full-size Moonshine architecture, seeded random weights: compute cost, not accuracy',
  kokoro: 'Kokoro-82M-sized graph, seeded random weights: compute cost, not speech',
};

function precisionOf(model: ModelSpec, dtype: Dtype): Precision {
  if (dtype === 'fp32' || dtype === 'q8') return dtype;
  throw new Error(`full-size fixture for ${model.name}: no ${dtype} variant (fp32 and q8 only)`);
}

export function fullFixture(model: ModelSpec, dtype: Dtype, seed: number): FixtureFiles {
  const precision = precisionOf(model, dtype);
  if (model.provider === 'whisper') return whisperFullFiles(model, precision, seed);
  if (model.provider === 'moonshine') return moonshineFullFiles(model, precision, seed);
  return kokoroFullFiles(model, precision, seed);
}

/** The parameter count of a model's full-size graphs, counted without generating a weight. */
export function fullParameterCount(model: ModelSpec): number {
  if (model.provider === 'whisper') return whisperGraphs(model, 'fp32', 0, true).parameters;
  if (model.provider === 'moonshine') return moonshineGraphs(model, 'fp32', 0, true).parameters;
  return kokoroGraphs('fp32', 0, true).parameters;
}
