/**
 * Reading `pocketsphinx_continuous -time yes` output (PocketSphinx
 * 0.8+5prealpha, Debian 12). Per utterance its segmenter closes, it prints the
 * hypothesis on one line, then one line per segment: `word start end
 * confidence`, times in seconds from the start of the input, fillers included
 * (`<s>`, `</s>`, `<sil>`, `[NOISE]`, `++...++`) and alternate pronunciations
 * marked `word(2)`.
 */

export interface SphinxSegment {
  word: string;
  start_sec: number;
  end_sec: number;
  confidence: number;
}

export type SphinxLine = { kind: 'hypothesis'; text: string } | ({ kind: 'segment' } & SphinxSegment);

const NUMBER = /^-?\d+(\.\d+)?$/;

export function parseSphinxLine(line: string): SphinxLine {
  const parts = line.trim().split(/\s+/);
  if (parts.length === 4 && NUMBER.test(parts[1]) && NUMBER.test(parts[2]) && NUMBER.test(parts[3])) {
    return {
      kind: 'segment',
      word: parts[0],
      start_sec: Number(parts[1]),
      end_sec: Number(parts[2]),
      confidence: Number(parts[3]),
    };
  }
  return { kind: 'hypothesis', text: line.trim().replace(/\s+/g, ' ') };
}

/** Silence, sentence markers and noise models: segments that are not words. */
export function isFiller(word: string): boolean {
  return word.startsWith('<') || word.startsWith('[') || word.startsWith('++');
}

/** `was(2)` → `was`. */
export function baseWord(word: string): string {
  return word.replace(/\(\d+\)$/, '');
}

export interface SphinxResult {
  text: string;
  words: SphinxSegment[];
}

/** A whole run's stdout: hypotheses joined, real words kept with their times. */
export function parseSphinxOutput(stdout: string): SphinxResult {
  const texts: string[] = [];
  const words: SphinxSegment[] = [];
  for (const line of stdout.split('\n')) {
    if (!line.trim()) continue;
    const parsed = parseSphinxLine(line);
    if (parsed.kind === 'hypothesis') texts.push(parsed.text);
    else if (!isFiller(parsed.word)) {
      words.push({
        word: baseWord(parsed.word),
        start_sec: parsed.start_sec,
        end_sec: parsed.end_sec,
        confidence: parsed.confidence,
      });
    }
  }
  return { text: texts.join(' ').trim(), words };
}
