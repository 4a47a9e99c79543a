/**
 * Small tokenizers in the formats the real models ship (`tokenizer.json` as
 * Hugging Face's tokenizers library writes it), with the real special tokens:
 * Whisper's byte-level BPE, Moonshine's SentencePiece-style BPE (`▁` for a
 * space, `<s>`/`</s>`), Kokoro's phoneme table (one symbol per id, `$` padding
 * both ends).
 */

export interface TokenizerFiles {
  tokenizer: Record<string, unknown>;
  tokenizerConfig: Record<string, unknown>;
}

/** GPT-2's byte → printable character table, which Whisper's vocabulary is written in. */
function byteLevelTable(): string[] {
  const printable: number[] = [];
  for (let b = 0x21; b <= 0x7e; b++) printable.push(b);
  for (let b = 0xa1; b <= 0xac; b++) printable.push(b);
  for (let b = 0xae; b <= 0xff; b++) printable.push(b);
  const table: string[] = [];
  let extra = 0;
  for (let b = 0; b < 256; b++) {
    table[b] = printable.includes(b) ? String.fromCharCode(b) : String.fromCharCode(256 + extra++);
  }
  return table;
}

/** " fünf" → "Ġf\u00c3\u00bcnf": the text as Whisper's vocabulary spells it. */
export function byteLevel(text: string): string {
  const table = byteLevelTable();
  return [...Buffer.from(text, 'utf8')].map((b) => table[b]).join('');
}

function added(id: number, content: string): Record<string, unknown> {
  return { id, content, single_word: false, lstrip: false, rstrip: false, normalized: false, special: true };
}

/** `plain` are ordinary tokens (byte-level spelled here), `special` the `<|...|>` ones, in id order after them. */
export function whisperTokenizer(plain: readonly string[], special: readonly string[]): TokenizerFiles {
  const vocab: Record<string, number> = {};
  plain.forEach((t, i) => {
    vocab[byteLevel(t)] = i;
  });
  special.forEach((t, i) => {
    vocab[t] = plain.length + i;
  });
  const byteLevelStep = { type: 'ByteLevel', add_prefix_space: false, trim_offsets: true, use_regex: true };
  return {
    tokenizer: {
      version: '1.0',
      truncation: null,
      padding: null,
      added_tokens: special.map((t, i) => added(plain.length + i, t)),
      normalizer: null,
      pre_tokenizer: byteLevelStep,
      post_processor: { ...byteLevelStep, trim_offsets: false },
      decoder: byteLevelStep,
      model: {
        type: 'BPE',
        dropout: null,
        unk_token: null,
        continuing_subword_prefix: '',
        end_of_word_suffix: '',
        fuse_unk: false,
        byte_fallback: false,
        vocab,
        merges: [],
      },
    },
    tokenizerConfig: {
      tokenizer_class: 'WhisperTokenizer',
      model_max_length: 1024,
      bos_token: '<|endoftext|>',
      eos_token: '<|endoftext|>',
      unk_token: '<|endoftext|>',
      pad_token: '<|endoftext|>',
      add_prefix_space: false,
      clean_up_tokenization_spaces: true,
      errors: 'replace',
    },
  };
}

/** `<unk>`, `<s>`, `</s>` at 0, 1, 2, then `words` as `▁word`. */
export function moonshineTokenizer(words: readonly string[]): TokenizerFiles {
  const special = ['<unk>', '<s>', '</s>'];
  const vocab: Record<string, number> = {};
  special.forEach((t, i) => {
    vocab[t] = i;
  });
  words.forEach((w, i) => {
    vocab[`▁${w}`] = special.length + i;
  });
  return {
    tokenizer: {
      version: '1.0',
      truncation: null,
      padding: null,
      added_tokens: special.map((t, i) => added(i, t)),
      normalizer: null,
      pre_tokenizer: { type: 'Metaspace', replacement: '▁', prepend_scheme: 'first', split: false },
      post_processor: null,
      decoder: {
        type: 'Sequence',
        decoders: [
          { type: 'Replace', pattern: { String: '▁' }, content: ' ' },
          { type: 'ByteFallback' },
          { type: 'Fuse' },
          { type: 'Strip', content: ' ', start: 1, stop: 0 },
        ],
      },
      model: {
        type: 'BPE',
        dropout: null,
        unk_token: '<unk>',
        continuing_subword_prefix: null,
        end_of_word_suffix: null,
        fuse_unk: true,
        byte_fallback: true,
        vocab,
        merges: [],
      },
    },
    tokenizerConfig: {
      tokenizer_class: 'LlamaTokenizer',
      bos_token: '<s>',
      eos_token: '</s>',
      unk_token: '<unk>',
      add_bos_token: true,
      add_eos_token: false,
      model_max_length: 512,
      clean_up_tokenization_spaces: false,
      legacy: false,
    },
  };
}

/** Kokoro's phoneme symbols (the characters its G2P emits), `$` = 0 pads each end. */
export const KOKORO_SYMBOLS = [
  ';:,.!?—…"()“” ʣʥʦʨᵝꭧAIOQ',
  'STWYᵊabcdefhijklmnopqrst',
  'uvwxyzɑɐɒæβɔɕçɖðʤəɚɛɜɟɡɥ',
  'ɨɪʝɯɰŋɳɲɴøɸθœɹɾɻʁɽʂʃʈʧʊʋ',
  'ʌɣɤχʎʒʔˈˌːʰʲ↓→↗↘ᵻ',
].join('');

export function kokoroTokenizer(): TokenizerFiles {
  const symbols = [...KOKORO_SYMBOLS];
  const vocab: Record<string, number> = { $: 0 };
  symbols.forEach((s, i) => {
    vocab[s] = i + 1;
  });
  const escaped = symbols.map((s) => s.replace(/[\\\]^-]/g, (c) => `\\${c}`)).join('');
  return {
    tokenizer: {
      version: '1.0',
      truncation: null,
      padding: null,
      added_tokens: [added(0, '$')],
      // Anything that is not a symbol is dropped before splitting into symbols.
      normalizer: { type: 'Replace', pattern: { Regex: `[^$${escaped}]` }, content: '' },
      pre_tokenizer: { type: 'Split', pattern: { Regex: '' }, behavior: 'Isolated', invert: false },
      post_processor: {
        type: 'TemplateProcessing',
        single: [
          { SpecialToken: { id: '$', type_id: 0 } },
          { Sequence: { id: 'A', type_id: 0 } },
          { SpecialToken: { id: '$', type_id: 0 } },
        ],
        pair: [{ Sequence: { id: 'A', type_id: 0 } }, { Sequence: { id: 'B', type_id: 1 } }],
        special_tokens: { $: { id: '$', ids: [0], tokens: ['$'] } },
      },
      decoder: null,
      model: { vocab },
    },
    tokenizerConfig: { model_max_length: 512, pad_token: '$', unk_token: '$', clean_up_tokenization_spaces: false },
  };
}

export function kokoroVocabSize(): number {
  return [...KOKORO_SYMBOLS].length + 1;
}
