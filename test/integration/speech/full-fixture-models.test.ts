import * as ort from 'onnxruntime-node';
import { describe, expect, it } from 'vitest';
import { findModel, type ModelSpec } from '../../../src/speech/models/registry.js';
import { fullFixture, fullParameterCount } from '../../../src/speech/fixture-models/full/index.js';
import { Net } from '../../../src/speech/fixture-models/full/net.js';

function model(name: string): ModelSpec {
  const spec = findModel(name);
  if (!spec) throw new Error(`no model ${name}`);
  return spec;
}

/** The published parameter counts of the real checkpoints. */
const REAL_PARAMETERS: Record<string, number> = {
  'whisper-tiny.en': 37.8e6,
  'whisper-tiny': 37.8e6,
  'whisper-base.en': 72.6e6,
  'whisper-base': 72.6e6,
  'moonshine-tiny': 27.1e6,
  'moonshine-base': 61.5e6,
  kokoro: 81.8e6,
};

describe('full-size fixtures', () => {
  it('have the real models’ parameter counts (within 10 %)', () => {
    for (const [name, real] of Object.entries(REAL_PARAMETERS)) {
      const count = fullParameterCount(model(name));
      console.log(`${name.padEnd(16)} ${(count / 1e6).toFixed(2)} M parameters (real ${(real / 1e6).toFixed(1)} M)`);
      expect(Math.abs(count - real) / real, name).toBeLessThan(0.1);
    }
  });

  it('draw the same weights from a seed, in fp32 and q8 alike (q8 within one quantization step)', () => {
    const values = (net: Net, type: 'float' | 'int8'): Float32Array | Int8Array => {
      const initializers = net.g.toProto().initializer as { name: string; raw_data: Uint8Array }[];
      const w = initializers.find((i) => i.name.startsWith('w'));
      if (!w) throw new Error('no weight');
      const bytes = w.raw_data;
      return type === 'float'
        ? new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4)
        : new Int8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    };
    const fp32 = new Net('a', 'fp32', 7);
    const q8 = new Net('b', 'q8', 7);
    const plain = fp32.matrix('w', [32, 48], 0.5);
    const quantized = q8.matrix('w', [32, 48], 0.5);
    expect(plain.kind).toBe('fp32');
    expect(quantized.kind).toBe('q8');
    const reference = values(fp32, 'float');
    const ints = values(q8, 'int8');
    const step = Math.max(...reference.map(Math.abs)) / 127;
    for (let i = 0; i < reference.length; i++) expect(Math.abs(ints[i] * step - reference[i])).toBeLessThan(step);
    const again = new Net('c', 'fp32', 7);
    again.matrix('w', [32, 48], 0.5);
    expect(values(again, 'float')).toEqual(reference);
  });

  it('whisper-tiny.en: real token ids, and a merged decoder ONNX Runtime runs with a growing cache', async () => {
    const spec = model('whisper-tiny.en');
    const fp32 = fullFixture(spec, 'fp32', 1);
    const q8 = fullFixture(spec, 'q8', 1);
    const generation = fp32.json['generation_config.json'] as Record<string, unknown>;
    expect(generation).toMatchObject({ eos_token_id: 50256, decoder_start_token_id: 50257 });
    expect(generation.no_timestamps_token_id).toBe(50362);
    const vocab = (fp32.json['tokenizer.json'] as { model: { vocab: Record<string, number> } }).model.vocab;
    expect(vocab['<|en|>']).toBe(50258);
    expect(vocab['<|transcribe|>']).toBe(50358);
    expect(vocab['<|30.00|>']).toBe(51863);
    expect(Object.keys(vocab)).toHaveLength(51864);
    // int8 matrices: the quantized decoder is about a quarter of the fp32 one.
    const fp32Bytes = fp32.graphs.decoder_model_merged.byteLength;
    expect(q8.graphs.decoder_model_merged.byteLength).toBeLessThan(fp32Bytes / 3);

    const d = { layers: 4, heads: 6, headDim: 64, vocab: 51864, frames: 1500 };
    const encoder = new ort.Tensor('float32', new Float32Array(d.frames * 384).fill(0.1), [1, d.frames, 384]);
    for (const graph of [fp32.graphs.decoder_model_merged, q8.graphs.decoder_model_merged]) {
      const session = await ort.InferenceSession.create(graph);
      const names = Array.from({ length: d.layers }, (_, i) =>
        ['decoder', 'encoder'].flatMap((side) => ['key', 'value'].map((kv) => `${i}.${side}.${kv}`)),
      ).flat();
      expect([...session.inputNames].sort()).toEqual(
        ['input_ids', 'encoder_hidden_states', 'use_cache_branch', ...names.map((n) => `past_key_values.${n}`)].sort(),
      );
      expect([...session.outputNames].sort()).toEqual(['logits', ...names.map((n) => `present.${n}`)].sort());

      const empty = (n: number): ort.Tensor => new ort.Tensor('float32', new Float32Array(0), [1, d.heads, n, 64]);
      const feeds = (ids: number[], useCache: boolean, past: (name: string) => ort.Tensor) => ({
        input_ids: new ort.Tensor('int64', BigInt64Array.from(ids.map(BigInt)), [1, ids.length]),
        encoder_hidden_states: encoder,
        use_cache_branch: new ort.Tensor('bool', [useCache], [1]),
        ...Object.fromEntries(names.map((n) => [`past_key_values.${n}`, past(n)])),
      });
      const first = await session.run(feeds([50257, 50362], false, () => empty(0)));
      expect(first.logits.dims).toEqual([1, 2, d.vocab]);
      expect(first['present.3.decoder.key'].dims).toEqual([1, d.heads, 2, d.headDim]);
      expect(first['present.3.encoder.value'].dims).toEqual([1, d.heads, d.frames, d.headDim]);
      const next = await session.run(feeds([400], true, (n) => first[`present.${n}`]));
      expect(next.logits.dims).toEqual([1, 1, d.vocab]);
      expect(next['present.0.decoder.value'].dims).toEqual([1, d.heads, 3, d.headDim]);
      // With past, the encoder outputs are optimum's empty placeholders: the cache fed in is reused.
      expect(next['present.0.encoder.key'].size).toBe(0);
      expect((next.logits.data as Float32Array).every(Number.isFinite)).toBe(true);
      await session.release();
    }
  });

  it('refuses dtypes it has no variant of', () => {
    expect(() => fullFixture(model('kokoro'), 'q4', 1)).toThrow(/fp32 and q8 only/);
  });
});
