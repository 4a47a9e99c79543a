/**
 * Vocabularies of the real sizes: synthetic ordinary tokens (pronounceable,
 * unique, so a transcript of random weights still reads as words) with the
 * special tokens on the ids the real checkpoints give them, which
 * transformers.js's Whisper generation and decoding look up.
 */

const CONSONANTS = [...'bdfghjklmnprstvwz'];
const VOWELS = [...'aeiou'];
const SYLLABLES = CONSONANTS.flatMap((c) => VOWELS.map((v) => c + v));

/** Word `index` in bijective base-85 over consonant-vowel syllables: ba, be, ..., zu, baba, ... */
function word(index: number): string {
  let n = index + 1;
  let out = '';
  while (n > 0) {
    n -= 1;
    out = SYLLABLES[n % SYLLABLES.length] + out;
    n = Math.floor(n / SYLLABLES.length);
  }
  return out;
}

/** `count` distinct words. */
export function syntheticWords(count: number): string[] {
  return Array.from({ length: count }, (_, i) => word(i));
}

/** Whisper's 99 language codes in token order (transformers.js's `WHISPER_LANGUAGES`). */
export const WHISPER_LANGUAGE_CODES = [
  ...['en', 'zh', 'de', 'es', 'ru', 'ko', 'fr', 'ja', 'pt', 'tr', 'pl', 'ca', 'nl', 'ar', 'sv', 'it', 'id', 'hi'],
  ...['fi', 'vi', 'he', 'uk', 'el', 'ms', 'cs', 'ro', 'da', 'hu', 'ta', 'no', 'th', 'ur', 'hr', 'bg', 'lt', 'la'],
  ...['mi', 'ml', 'cy', 'sk', 'te', 'fa', 'lv', 'bn', 'sr', 'az', 'sl', 'kn', 'et', 'mk', 'br', 'eu', 'is', 'hy'],
  ...['ne', 'mn', 'bs', 'kk', 'sq', 'sw', 'gl', 'mr', 'pa', 'si', 'km', 'sn', 'yo', 'so', 'af', 'oc', 'ka', 'be'],
  ...['tg', 'sd', 'gu', 'am', 'yi', 'lo', 'uz', 'fo', 'ht', 'ps', 'tk', 'nn', 'mt', 'sa', 'lb', 'my', 'bo', 'tl'],
  ...['mg', 'as', 'tt', 'haw', 'ln', 'ha', 'ba', 'jw', 'su'],
] as const;

/** 0.00 .. 30.00 s in 20 ms steps. */
const TIMESTAMPS = 1501;

export interface WhisperVocab {
  /** Ordinary tokens, ids 0 .. plain.length - 1 (GPT-2's 50256 / 50257 of the multilingual vocabulary). */
  plain: string[];
  /** `<|endoftext|>` onwards, in id order. */
  special: string[];
  size: number;
  id(token: string): number;
}

export function whisperVocab(multilingual: boolean): WhisperVocab {
  const plainCount = multilingual ? 50257 : 50256;
  const plain = syntheticWords(plainCount).map((w) => ` ${w}`);
  const special = [
    '<|endoftext|>',
    '<|startoftranscript|>',
    ...WHISPER_LANGUAGE_CODES.map((l) => `<|${l}|>`),
    '<|translate|>',
    '<|transcribe|>',
    '<|startoflm|>',
    '<|startofprev|>',
    multilingual ? '<|nospeech|>' : '<|nocaptions|>',
    '<|notimestamps|>',
    ...Array.from({ length: TIMESTAMPS }, (_, i) => `<|${(i * 0.02).toFixed(2)}|>`),
  ];
  const ids = new Map(special.map((t, i) => [t, plainCount + i]));
  return {
    plain,
    special,
    size: plainCount + special.length,
    id(token) {
      const found = ids.get(token);
      if (found === undefined) throw new Error(`no special token ${token}`);
      return found;
    },
  };
}
