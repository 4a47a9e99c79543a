import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countingTranscript } from '../../../src/speech/fixture-models/counting.js';
import { encodeModel, GraphBuilder } from '../../../src/speech/fixture-models/graph.js';
import { KOKORO_TOKEN_SAMPLES, kokoroToneHz } from '../../../src/speech/fixture-models/kokoro-tiny.js';
import { KOKORO_SYMBOLS } from '../../../src/speech/fixture-models/tokenizers.js';
import { writeFixtureModels } from '../../../src/speech/fixture-models/write.js';
import { LocalHub } from '../../../src/speech/models/hub.testutil.js';
import { pullModel } from '../../../src/speech/models/pull.js';
import { findModel } from '../../../src/speech/models/registry.js';
import { ModelStore } from '../../../src/speech/models/store.js';
import { createStt } from '../../../src/speech/stt/table.js';
import type { SttProvider } from '../../../src/speech/stt/types.js';
import { createTts } from '../../../src/speech/tts/table.js';
import { readTones, toneBursts } from './tones.testutil.js';

/**
 * Real ONNX forward passes through earshot's own providers, on generated
 * fixture models in the store layout (`npm run models:fixtures`): the
 * transformers.js ASR pipeline for Whisper and Moonshine (feature extraction,
 * encoder, the merged decoder's cache, generation, token decoding) and
 * kokoro-js for Kokoro (phonemes, tokenizer, voice tables, the 24 kHz → caller
 * rate path). The fixtures' outputs are known from the audio: the counting
 * recognizers say one number word per voiced burst, the Kokoro fixture speaks
 * one tone per phoneme token.
 */
let dir: string;
let store: ModelStore;
const providers: SttProvider[] = [];

async function stt(spec: string | Record<string, unknown>, at: ModelStore = store): Promise<SttProvider> {
  const provider = await createStt(spec, { modelStore: at });
  providers.push(provider);
  return provider;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'earshot-fixture-models-'));
  store = new ModelStore(dir);
  await writeFixtureModels(dir);
});
afterAll(async () => {
  await Promise.all(providers.map((p) => p.close()));
  rmSync(dir, { recursive: true, force: true });
});

describe('the ONNX writer', () => {
  it('writes a model ONNX Runtime runs: typed inputs, weights, attributes and an If with two branches', async () => {
    const g = new GraphBuilder('check');
    const x = g.input('x', 'float', [1, 'n']);
    const flag = g.input('flag', 'bool', [1]);
    const doubled = g.op('Mul', [x, g.floats([2], [])]);
    const plus = g.branch('plus');
    plus.output('plus_out', plus.op('Add', [doubled, plus.floats([1], [])]), 'float', [1, 'n']);
    const minus = g.branch('minus');
    minus.output('minus_out', minus.op('Sub', [doubled, minus.floats([1], [])]), 'float', [1, 'n']);
    const chosen = g.op('If', [flag], { then_branch: plus, else_branch: minus });
    g.output('y', g.op('ReduceSum', [chosen, g.ints([1])], { keepdims: 0 }), 'float', [1]);
    const ort = await import('onnxruntime-node');
    const session = await ort.InferenceSession.create(encodeModel(g, { doc: 'test' }));
    const run = async (on: boolean): Promise<number> => {
      const out = await session.run({
        x: new ort.Tensor('float32', Float32Array.from([1, 2, 3]), [1, 3]),
        flag: new ort.Tensor('bool', [on], [1]),
      });
      return Number(out.y.data[0]);
    };
    expect([await run(true), await run(false)]).toEqual([15, 9]);
    expect(session.inputNames).toEqual(['x', 'flag']);
  });
});

describe('Whisper (transformers.js pipeline on the counting fixture)', () => {
  it('hears each voiced burst, at the bot rate, and the transcript follows the audio', async () => {
    const whisper = await stt('whisper:tiny.en');
    for (const bursts of [3, 1, 5]) {
      const heard = await whisper.transcribe(toneBursts(bursts, 24000), 24000);
      expect(heard.text).toBe(countingTranscript(bursts));
      expect(heard.audioSeconds).toBe(3);
    }
    // Whisper says [BLANK_AUDIO] for silence (its end token may not come first); earshot reads that as nothing.
    expect((await whisper.transcribe(new Int16Array(24000), 24000)).text).toBe('');
    expect(whisper.model).toBe('whisper-tiny.en');
    expect(whisper.origin).toMatch(/^generated fixture \(tiny\): counts voiced bursts/);
  });

  it('passes a multilingual model its language: the prompt tokens pick the words through the decoder cache', async () => {
    const whisper = await stt({ service: 'whisper', model: 'base', language: 'de' });
    expect((await whisper.transcribe(toneBursts(3, 16000), 16000)).text).toBe('eins zwei drei');
    expect((await whisper.transcribe(toneBursts(2, 16000), 16000, { language: 'fr' })).text).toBe('un deux');
    expect((await whisper.transcribe(toneBursts(2, 16000), 16000, { language: 'en' })).text).toBe('one two');
  });

  it('loads the fp32 decoder on two threads when asked, and serves concurrent sessions through one pipeline, each its own answer', async () => {
    const whisper = await stt({ service: 'whisper', model: 'tiny.en', dtype: 'fp32', threads: 2 });
    const texts = await Promise.all(
      [4, 2, 3].map(async (n) => (await whisper.transcribe(toneBursts(n, 8000), 8000)).text),
    );
    expect(texts).toEqual([4, 2, 3].map((n) => countingTranscript(n)));
  });
});

describe('Moonshine (raw samples into the encoder)', () => {
  it('counts the bursts, and a reply under a second still gets its words', async () => {
    const moonshine = await stt('moonshine:tiny');
    expect((await moonshine.transcribe(toneBursts(4, 16000), 16000)).text).toBe(countingTranscript(4));
    // transformers.js allows floor(seconds) × 6 new tokens: none for 0.95 s without padding (one step still runs,
    // so a one-word reply survived and a two-word reply lost its second word). earshot allows at least 6.
    const short = await stt({ service: 'moonshine', model: 'tiny', padding_secs: 0 });
    expect((await short.transcribe(toneBursts(2, 16000, 0.95), 16000)).text).toBe('one two');
  });
});

describe('Kokoro (kokoro-js on the tone fixture)', () => {
  it('speaks the phoneme tokens of the text, resampled from 24 kHz to the rate asked for', async () => {
    const kokoro = await createTts({ provider: 'kokoro' }, { modelStore: store, noCache: true });
    try {
      const symbols = ['$', ...KOKORO_SYMBOLS];
      const ids = symbols.map((_, i) => i);
      const say = async (text: string, rate: number): Promise<string> => {
        const { pcm, sampleRate } = await kokoro.synthesize(text, { sampleRate: rate });
        expect(sampleRate).toBe(rate);
        const segment = (KOKORO_TOKEN_SAMPLES * rate) / 24000;
        expect(pcm.length % segment).toBe(0);
        return readTones(pcm, rate, segment, ids, kokoroToneHz)
          .map((id) => symbols[id])
          .join('');
      };
      // espeak-ng's phonemes for the text (kokoro-js's G2P), between the `$` pads, read back from the tones.
      const hello = await say('Hello there.', 16000);
      expect(hello).toBe('$həlˈoʊ ðˈɛɹ.$');
      expect(await say('Hello there.', 8000)).toBe(hello);
      expect(await say('What time is it?', 16000)).toBe('$wˌʌt tˈaɪm ɪz ɪt?$');
      // `speed` reaches the model: twice as fast is half as long.
      const fast = await createTts({ provider: 'kokoro', speed: 2 }, { modelStore: store, noCache: true });
      const [normal, quick] = await Promise.all(
        [kokoro, fast].map((tts) => tts.synthesize('Hello there.', { sampleRate: 16000 })),
      );
      await fast.close();
      expect(quick.pcm.length).toBe(normal.pcm.length / 2);
      expect(kokoro.origin).toMatch(/^generated fixture \(tiny\): one 100 ms tone per phoneme token/);
    } finally {
      await kokoro.close();
    }
  });
});

describe('earshot models pull, then a run on what it pulled', () => {
  it('downloads the generated files from a hub and transcribes with them', async () => {
    const hub = new LocalHub();
    const model = findModel('whisper-tiny.en')!;
    const source = store.modelDir(model);
    const files: Record<string, Buffer> = {};
    const walk = (at: string): void => {
      for (const name of readdirSync(at)) {
        const path = join(at, name);
        if (statSync(path).isDirectory()) walk(path);
        else files[relative(source, path)] = readFileSync(path);
      }
    };
    walk(source);
    hub.addFiles(model.repo, files);
    await hub.start();
    const pulledDir = mkdtempSync(join(tmpdir(), 'earshot-pulled-'));
    try {
      const pulled = new ModelStore(pulledDir);
      const result = await pullModel('whisper-tiny.en', { store: pulled, hub: { endpoint: hub.endpoint } });
      expect(result.files.map((f) => f.path).sort()).toEqual(
        [
          'config.json',
          'generation_config.json',
          'onnx/decoder_model_merged_quantized.onnx',
          'onnx/encoder_model.onnx',
          'preprocessor_config.json',
          'tokenizer.json',
          'tokenizer_config.json',
        ].sort(),
      );
      const whisper = await stt('whisper:tiny.en', pulled);
      expect((await whisper.transcribe(toneBursts(2, 16000), 16000)).text).toBe('one two');
      // The marker is not part of a model's files: what a hub serves is taken for the model.
      expect(whisper.origin).toBeUndefined();
    } finally {
      await hub.stop();
      rmSync(pulledDir, { recursive: true, force: true });
    }
  });
});
