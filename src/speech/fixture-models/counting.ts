/**
 * The tiny fixtures' arithmetic: an encoder tail that counts the voiced
 * bursts in a level signal, and a decoder that says one number word per
 * burst, in the language its prompt asked for.
 *
 * The weights are set, not trained: a test knows the transcript from the audio
 * it made (three tone bursts → "one two three") and sees it change when the
 * audio changes. Every path the real models use carries information the
 * answer depends on, so a loader or generation loop that feeds a tensor wrongly
 * gets a wrong transcript, not a pass:
 * - the count travels from the encoder's `last_hidden_state` through the
 *   decoder's cross-attention, whose keys and values come back on later steps
 *   as `past_key_values.*.encoder.*` (an `If` on `use_cache_branch` reads them,
 *   as optimum's merged decoders do);
 * - the language travels through the self-attention cache: the prompt's tokens
 *   leave a language vector in `present.*.decoder.value`, which later steps
 *   only see if the cache is fed back;
 * - the number of words said so far is the state carried by the last token.
 */
import type { GraphBuilder } from './graph.js';

/** Rising edges become bursts; gaps shorter than this many positions are bridged. */
const BRIDGE_POSITIONS = 9;
const NEG = -100;
/** How far a wrong language pushes its words down. */
const LANGUAGE_GATE = 20;

export const FIXTURE_LANGUAGES = ['en', 'de', 'fr', 'es'] as const;
export type FixtureLanguage = (typeof FIXTURE_LANGUAGES)[number];

/** What the fixtures say for 1..12 bursts. */
export const NUMBER_WORDS: Record<FixtureLanguage, readonly string[]> = {
  en: ['one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten', 'eleven', 'twelve'],
  de: ['eins', 'zwei', 'drei', 'vier', 'fünf', 'sechs', 'sieben', 'acht', 'neun', 'zehn', 'elf', 'zwölf'],
  fr: ['un', 'deux', 'trois', 'quatre', 'cinq', 'six', 'sept', 'huit', 'neuf', 'dix', 'onze', 'douze'],
  es: ['uno', 'dos', 'tres', 'cuatro', 'cinco', 'seis', 'siete', 'ocho', 'nueve', 'diez', 'once', 'doce'],
};

/** The transcript a counting fixture gives for `bursts` voiced bursts. */
export function countingTranscript(bursts: number, language: FixtureLanguage = 'en'): string {
  return NUMBER_WORDS[language].slice(0, bursts).join(' ');
}

/**
 * level [1, 1, T] (one value per 20 ms position) → [1, T, 4]: channel 0 is 1
 * where a burst starts, channel 1 is 1 where the audio is voiced. Voiced means
 * above `floor`, a [1, 1, 1] threshold the caller derives from the loudest
 * position (relative, so the count does not depend on the playback level).
 */
export function burstFeatures(g: GraphBuilder, level: string, floor: string): string {
  const voiced = g.op('Cast', [g.op('Greater', [level, floor])], { to: 1 });
  const half = (BRIDGE_POSITIONS - 1) / 2;
  const bridged = g.op('MaxPool', [voiced], { kernel_shape: [BRIDGE_POSITIONS], pads: [half, half], strides: [1] });
  // previous[t] = bridged[t - 1], 0 before the start: an edge is where it rises.
  const padded = g.op('Pad', [bridged, g.ints([0, 0, 1, 0, 0, 0])]);
  const length = g.op('Gather', [g.op('Shape', [bridged]), g.ints([2])]);
  const previous = g.op('Slice', [padded, g.ints([0]), length, g.ints([2])]);
  const edges = g.op('Relu', [g.op('Sub', [bridged, previous])]);
  const zero = g.op('Sub', [bridged, bridged]);
  const channels = g.op('Concat', [edges, bridged, zero, zero], { axis: 1 });
  return g.op('Transpose', [channels], { perm: [0, 2, 1] });
}

export interface CountingVocab {
  size: number;
  eos: number;
  /** The token the prompt ends with: generation starts from its logits. */
  promptEnd: number;
  /** Said for silence where the end token cannot come first (Whisper suppresses it). */
  blank?: number;
  words: Partial<Record<FixtureLanguage, readonly number[]>>;
  /** Language vector each prompt token adds (summed over the prompt). */
  languageOf: ReadonlyMap<number, Partial<Record<FixtureLanguage, number>>>;
}

interface DecoderNames {
  /** `past_key_values.0.decoder.key` etc.: the one layer's cache names. */
  layer: number;
}

/**
 * The merged decoder (one layer, one head of width 4): input_ids,
 * encoder_hidden_states, past_key_values.0.{decoder,encoder}.{key,value},
 * use_cache_branch → logits, present.0.*.
 */
export function countingDecoder(g: GraphBuilder, vocab: CountingVocab, names: DecoderNames = { layer: 0 }): void {
  const p = `past_key_values.${names.layer}`;
  const o = `present.${names.layer}`;
  const ids = g.input('input_ids', 'int64', ['batch_size', 'decoder_sequence_length']);
  const encoder = g.input('encoder_hidden_states', 'float', ['batch_size', 'encoder_sequence_length', 4]);
  const pastDec = ['key', 'value'].map((kv) =>
    g.input(`${p}.decoder.${kv}`, 'float', ['batch_size', 1, 'past_decoder_sequence_length', 4]),
  );
  const pastEnc = ['key', 'value'].map((kv) =>
    g.input(`${p}.encoder.${kv}`, 'float', ['batch_size', 1, 'encoder_sequence_length_out', 4]),
  );
  const useCache = g.input('use_cache_branch', 'bool', [1]);

  // Self-attention cache: each token's language vector, appended to the past.
  const tables = countingTables(vocab);
  const ownHeads = g.op('Unsqueeze', [g.op('Gather', [tables.languageName(g), ids]), g.ints([1])]);
  const presentDec = pastDec.map((past) => g.op('Concat', [past, ownHeads], { axis: 2 }));
  const language = g.op('Reshape', [
    g.op('ReduceSum', [presentDec[1], g.ints([2])], { keepdims: 0 }),
    g.ints([-1, 1, 4, 1]),
  ]);

  // Cross-attention keys and values: computed on the first step, read back from the cache after it.
  const fresh = g.branch('compute_encoder_kv');
  const heads = fresh.op('Unsqueeze', [encoder, fresh.ints([1])]);
  fresh.output('encoder_key', fresh.op('Identity', [heads]), 'float', ['batch_size', 1, 'enc', 4]);
  fresh.output('encoder_value', fresh.op('Identity', [heads]), 'float', ['batch_size', 1, 'enc', 4]);
  const cached = g.branch('reuse_encoder_kv');
  cached.output('cached_key', cached.op('Identity', [pastEnc[0]]), 'float', ['batch_size', 1, 'enc', 4]);
  cached.output('cached_value', cached.op('Identity', [pastEnc[1]]), 'float', ['batch_size', 1, 'enc', 4]);
  const [encKey, encValue] = g.opN('If', [useCache], 2, { then_branch: cached, else_branch: fresh });

  // Uniform attention weights (a zero query): the output is the values' mean; times the length, their sum.
  const query = g.op('Mul', [
    g.op('Slice', [presentDec[0], g.ints([-1]), g.ints([2 ** 31]), g.ints([2])]),
    g.floats([0], []),
  ]);
  const weights = g.op('Softmax', [g.op('MatMul', [query, g.op('Transpose', [encKey], { perm: [0, 1, 3, 2] })])], {
    axis: -1,
  });
  const mean = g.op('MatMul', [weights, encValue]);
  const length = g.op('Cast', [g.op('Gather', [g.op('Shape', [encValue]), g.ints([2])])], { to: 1 });
  const bursts = g.op('Mul', [g.op('Slice', [mean, g.ints([0]), g.ints([1]), g.ints([3])]), length]);
  const count = g.op('Reshape', [bursts, g.ints([-1, 1, 1])]);

  const base = g.op('Gather', [g.weight('base', tables.base, [vocab.size, vocab.size]), ids]);
  const perBurst = g.op('Gather', [g.weight('per_burst', tables.perBurst, [vocab.size, vocab.size]), ids]);
  const perLanguage = g.op('Gather', [g.weight('per_language', tables.perLanguage, [vocab.size, 4, vocab.size]), ids]);
  const languageTerm = g.op('ReduceSum', [g.op('Mul', [perLanguage, language]), g.ints([2])], { keepdims: 0 });
  const logits = g.op('Add', [g.op('Add', [base, g.op('Mul', [perBurst, count])]), languageTerm]);

  g.output('logits', logits, 'float', ['batch_size', 'decoder_sequence_length', vocab.size]);
  g.output(`${o}.decoder.key`, presentDec[0], 'float', ['batch_size', 1, 'present_decoder_sequence_length', 4]);
  g.output(`${o}.decoder.value`, presentDec[1], 'float', ['batch_size', 1, 'present_decoder_sequence_length', 4]);
  g.output(`${o}.encoder.key`, encKey, 'float', ['batch_size', 1, 'encoder_sequence_length_out', 4]);
  g.output(`${o}.encoder.value`, encValue, 'float', ['batch_size', 1, 'encoder_sequence_length_out', 4]);
}

interface CountingTables {
  base: Float32Array;
  perBurst: Float32Array;
  perLanguage: Float32Array;
  language: Float32Array;
  languageName(g: GraphBuilder): string;
}

/**
 * logits(next | state token s) = base[s] + bursts · perBurst[s] + language · perLanguage[s].
 * After the prompt, word 1 of a language wins when there is a burst and the
 * language is the prompt's; after word k, word k + 1 wins while bursts > k,
 * else the end token.
 */
function countingTables(vocab: CountingVocab): CountingTables {
  const v = vocab.size;
  const base = new Float32Array(v * v).fill(NEG);
  const perBurst = new Float32Array(v * v);
  const perLanguage = new Float32Array(v * 4 * v);
  const language = new Float32Array(v * 4);
  for (let s = 0; s < v; s++) base[s * v + vocab.eos] = 0;
  const p = vocab.promptEnd;
  base[p * v + vocab.eos] = -0.3;
  if (vocab.blank !== undefined) {
    base[p * v + vocab.blank] = -0.25;
  }
  FIXTURE_LANGUAGES.forEach((lang, l) => {
    const words = vocab.words[lang];
    if (!words) return;
    base[p * v + words[0]] = -0.5 - LANGUAGE_GATE;
    perBurst[p * v + words[0]] = 1;
    perLanguage[(p * 4 + l) * v + words[0]] = LANGUAGE_GATE;
    words.forEach((word, k) => {
      const next = words[k + 1];
      if (next === undefined) return;
      base[word * v + next] = -(k + 1) - 0.5;
      perBurst[word * v + next] = 1;
    });
  });
  for (const [token, vector] of vocab.languageOf) {
    FIXTURE_LANGUAGES.forEach((lang, l) => {
      language[token * 4 + l] = vector[lang] ?? 0;
    });
  }
  let name: string | undefined;
  return {
    base,
    perBurst,
    perLanguage,
    language,
    languageName(g) {
      name ??= g.weight('language', language, [v, 4]);
      return name;
    },
  };
}
